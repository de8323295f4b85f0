"""What runs the models: loading, process-wide settings, the sentence encoder, the LM with its chat
format and prompts, grammar decoding."""

"""What runs the models: loading, the sentence encoder, the LM and its prompts, grammar decoding."""

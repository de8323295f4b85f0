"""Engines: the local constrained-choice engine and the generative (LiteLLM) path."""

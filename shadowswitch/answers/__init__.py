"""The answer: OpenAI wire format, validation, comparison of two answers, and the local fill."""

"""Proxy overhead: the pass-through path against the upstream direct and LiteLLM's own proxy."""

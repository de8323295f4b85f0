"""End-to-end agent benchmark: the demo's travel agent and task set, direct and through the proxy."""

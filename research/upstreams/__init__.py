"""OpenAI-compatible upstreams for tests and benchmarks: real HTTP servers with scripted answers."""

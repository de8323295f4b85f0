"""Scaling of the local engine: offered tools, concurrency, memory and start-up of a real server."""

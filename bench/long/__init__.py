"""Decision latency against request length: the shop agent's requests, 3k to 16k tokens."""

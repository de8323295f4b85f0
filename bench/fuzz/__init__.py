"""Property-based fuzzing of the proxy's inputs: request bodies, tool schemas, policy files."""

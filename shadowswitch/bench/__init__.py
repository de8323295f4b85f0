"""Benchmarks: BFCL cases through the proxy's local engine, side by side with generation."""

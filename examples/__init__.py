"""Examples that use shadowswitch from the outside: a legacy agent and the demo built around it."""

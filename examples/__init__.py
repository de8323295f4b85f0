"""Examples that use shadowswitch from the outside: a legacy agent, the demo built around it, and
the offline upstreams (upstreams/) that the tests and the lab run the proxy against."""

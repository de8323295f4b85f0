"""`shadowswitch demo`: the travel agent, a generative upstream, the proxy, and the rollout story."""

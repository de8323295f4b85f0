"""Offline OpenAI-compatible upstreams, real HTTP servers standing in for the big model.

`scripted` answers by rules read from the request (the tests' upstream, and the load benchmark's);
`replay` answers what a recorded agent did (learning tests and benchmarks); `stub` answers plain
text and counts hits (benchmarks). They import nothing of shadowswitch: the tests, the lab
(bench/) and the demo all reach them here.
"""

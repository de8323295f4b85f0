"""Per-task-type learning from the generative answers the proxy already sees.

`exemplar` turns a (generative answer, local choice) pair into a stored exemplar; `memory` is the
served state the engine consults (a nearest-neighbour vote over the exemplars' encoder vectors and
the constants the upstream always sets; `transforms`, the rewrites it applies to values read from
the text; `values`, how it ranks the values the text offers a parameter); `fit` fits its weight
and threshold to `engine.target_agreement`; `challenger` builds a new state and promotes it only on evidence;
`served` keeps every replica's copy of the served states current; `background` learns off the
request path. The engine reads a state through the interface it defines
(`engines/local/learned_state.py`): learning/ imports the engine, never the reverse.
"""

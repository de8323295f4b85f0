"""The request path: a request classified, routed, answered by an engine or the upstream, recorded."""

"""BFCL through the proxy beside generation: cases, the AST checker, baselines, results."""

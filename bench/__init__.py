"""The benchmark lab: BFCL loading and checking, baselines, calibration.

It imports `shadowswitch`; the product never imports it (tests/test_layout.py checks). Its
`bench` command group reaches the `shadowswitch` CLI through the `shadowswitch.cli` entry point.
"""

"""Arbiter's benchmarks: the real stack on loopback, every figure a ratio against a
baseline measured in the same run (see bench/README.md).  Run with ``arbiter bench``."""

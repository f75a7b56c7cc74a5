"""The ``arbiter`` command (``cli.main``): brings up the stack, runs workers, simulates, verifies and benchmarks."""

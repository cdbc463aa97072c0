"""The fast exact solver (see solver.py); `solve` is its entry point."""

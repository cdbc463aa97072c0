"""The differential verifier: OneSwitch's translation against one real Open vSwitch bridge.

See `verifier.py` for the method and `__main__.py` for the command line.
"""

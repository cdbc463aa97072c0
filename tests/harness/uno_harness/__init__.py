"""Harnesses that run UNO's parts together for the demo, the integration tests and the benchmarks:
processes started and stopped by handle, OneSwitch and a controller and the agent on one platform,
the differential verifier, attack and crash drivers. Not used by the daemons themselves."""

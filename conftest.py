"""Project-wide pytest set-up: the emulated-platform fixtures are available to every test."""
pytest_plugins = ["uno_platform.testing"]

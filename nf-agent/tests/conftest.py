"""Fixtures of the agent's unit tests."""
from __future__ import annotations

import pytest
from fakes import World


@pytest.fixture
def world(tmp_path) -> World:
    """One NF with its traffic, over the fakes."""
    return World(tmp_path)

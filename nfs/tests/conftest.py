"""Fixtures for the NF tests: they need root (namespaces, raw sockets) and the
NFs built by `make -C nfs`."""
import os
import subprocess

import pytest
from nfenv import Netns

NFS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session", autouse=True)
def built_nfs():
    if os.geteuid() != 0:
        pytest.skip("the NF tests need root")
    subprocess.run(["make", "-s", "-C", NFS_DIR], check=True)


@pytest.fixture
def ns():
    with Netns() as netns:
        yield netns

"""Install UNO's Python packages and console scripts.

The packages live in the component folders of the layout (DESIGN.md), so each one
is mapped explicitly: snic-datapath/ holds the platform and the sNIC daemon, solver/ the placement
solver, nf-agent/ the agent and `unoctl`, nfs/python/ the NF control client,
oneswitch/python/ OneSwitch's command-line tools, tests/harness/ what runs the parts
together for the demo, the integration tests and the benchmarks.
Versions are pinned here; constraints.txt pins the transitive closure.
"""
import os

from setuptools import setup

ROOTS = {
    "uno_platform": "snic-datapath/uno_platform",
    "uno_snicd": "snic-datapath/uno_snicd",
    "uno_solver": "solver/uno_solver",
    "uno_agent": "nf-agent/uno_agent",
    "uno_nfs": "nfs/python/uno_nfs",
    "uno_oneswitch": "oneswitch/python/uno_oneswitch",
    "uno_harness": "tests/harness/uno_harness",
}


def _packages():
    """Every package and sub-package under ROOTS, with its folder."""
    mapping = {}
    for name, folder in ROOTS.items():
        for dirpath, _dirs, files in os.walk(folder):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, folder)
                pkg = name if rel == "." else name + "." + rel.replace(os.sep, ".")
                mapping[pkg] = dirpath
    return mapping


PACKAGE_DIRS = _packages()

setup(
    name="uno",
    version="0.1.0",
    description="UNO: unified host and smart-NIC offload for network functions",
    python_requires=">=3.11",
    packages=sorted(PACKAGE_DIRS),
    package_dir=PACKAGE_DIRS,
    package_data={"": ["*.json", "*.yaml"]},
    install_requires=[
        "flask==3.1.3",
        "jsonschema==4.26.0",
        "requests==2.34.2",
        "urllib3==2.8.0",
        "pulp==3.3.2",
        "highspy==1.16.0",
        "numpy==2.4.6",
        "prometheus-client==0.26.0",
        "waitress==3.0.2",
    ],
    extras_require={
        "test": [
            "pytest==9.2.0",
            "pytest-timeout==2.4.0",
            "pytest-cov==7.1.0",
            "pytest-xdist==3.8.0",
            "scapy==2.8.0",
            "os-ken==4.2.2",
            "matplotlib==3.11.2",
            "ruff==0.17.5",
            "schemathesis==4.32.5",
        ],
    },
    entry_points={
        "console_scripts": [
            "unoctl=uno_agent.unoctl:main",
            "uno-agent=uno_agent.daemon:main",
            "uno-snicd=uno_snicd.__main__:main",
        ],
    },
)

"""Every binary: --help, and one-line failures with the right exit status."""
import random
import subprocess

import pytest
from nftraffic import exchange, http_session

from uno_nfs import nf_binary

NFS = ["noop", "l2fw", "l7fw", "secgw", "monitor", "nat"]
CONFIGS = {
    "l2fw": "allow proto udp\n",
    "l7fw": "block proto HTTP\n",
    "secgw": "sa out spi 0x1000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3"
             " local 192.0.2.1 remote 192.0.2.2\n",
    "monitor": "max-assets 100\n",
    "nat": "external 203.0.113.1\ninternal 10.0.0.0/8\n",
}
BAD_CONFIGS = {
    "l2fw": "allow proto nosuch\n",
    "l7fw": "block proto NoSuchProtocol\n",
    "secgw": "sa out spi 0x1000 key 0x0011 local 192.0.2.1 remote 192.0.2.2\n",
    "monitor": "frobnicate 1\n",
    "nat": "external 203.0.113.1\n",
}


def run(*args, timeout=20):
    return subprocess.run([str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize("nf", NFS + ["pktgen"])
def test_help_and_bad_flags(nf):
    binary = nf_binary(nf)
    r = run(binary, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout
    r = run(binary, "--no-such-flag")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "--no-such-flag" in r.stderr
    r = run(binary)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


@pytest.mark.parametrize("nf", NFS)
def test_missing_interface_fails_in_one_line(nf, tmp_path):
    args = [nf_binary(nf), "--iface", "no-such-if0"]
    if nf in CONFIGS:
        (tmp_path / "c").write_text(CONFIGS[nf])
        args += ["--config", tmp_path / "c"]
    r = run(*args)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "no-such-if0" in r.stderr


@pytest.mark.parametrize("nf", sorted(CONFIGS))
def test_configurations_are_checked(nf, tmp_path):
    good, bad = tmp_path / "good.conf", tmp_path / "bad.conf"
    good.write_text(CONFIGS[nf])
    bad.write_text(BAD_CONFIGS[nf])
    r = run(nf_binary(nf), "--check-config", "--config", good)
    assert r.returncode == 0, r.stderr
    r = run(nf_binary(nf), "--check-config", "--config", bad)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "bad.conf" in r.stderr
    r = run(nf_binary(nf), "--check-config", "--config", tmp_path / "none")
    assert r.returncode == 2 and "No such file" in r.stderr


@pytest.mark.parametrize("nf", NFS)
def test_garbage_frames_never_crash(ns, tmp_path, nf):
    """Random bytes, random truncations of real packets and corrupted
    headers: every NF keeps running and accounts for every frame."""
    wire = ns.wire()
    proc = ns.start_nf(nf, tmp_path, config=CONFIGS.get(nf))
    rng = random.Random(7)
    real = http_session()
    frames = [rng.randbytes(rng.randint(14, 200)) for _ in range(300)]
    frames += [f[:rng.randint(14, len(f))] for f in real for _ in range(20)]
    for _ in range(300):
        f = bytearray(rng.choice(real))
        for _ in range(3):
            f[rng.randrange(12, len(f))] = rng.randrange(256)
        frames.append(bytes(f))
    exchange(wire, proc, frames)
    stats = proc.ctl.stats()
    assert proc.alive()
    assert stats["rx"] >= len(frames)
    assert stats["processed"] == stats["rx"]

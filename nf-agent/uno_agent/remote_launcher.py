"""NFs on remote sNICs (the `remote` platform profile), through each sNIC's daemon.

The host cannot start a process on a remote sNIC, signal it or open its control socket. The sNIC's daemon
does that there (uno_snicd), over mutual TLS. An NF there is known by its sNIC and instance id; its
"control" is `snicd:<sNIC>/<instance>`, which `nf_control` opens through the daemon. Sides that are not
remote (the host) are the process launcher's.
"""
from __future__ import annotations

import logging

from uno_agent.launcher import Instance, ProcessLauncher, platform_call
from uno_nfs import NfControl
from uno_platform.errors import PlatformError
from uno_platform.remote import RemotePlatform

log = logging.getLogger(__name__)

CONTROL_SCHEME = "snicd:"
REMOTE_CONTROL_TIMEOUT_S = 3.0   # an NF request across the management link: past it, the link or the daemon failed
                                 # (a migration's held packets wait meanwhile, so it is short)


class RemoteLauncher(ProcessLauncher):
    platform: RemotePlatform

    def _remote(self, side: str | None) -> bool:
        return side is not None and "machine" in self.platform.switch(side)

    def start_nf(self, instance_id: str, binary: str, side: str, port: str,
                 config_text: str | None, *, hold_packets: int | None = None) -> Instance:
        if not self._remote(side):
            return super().start_nf(instance_id, binary, side, port, config_text, hold_packets=hold_packets)
        self.binary(binary)   # the host's copy: the same build as the sNIC's (and check_config's)
        started = platform_call(self.platform.call, side, "start_nf", id=instance_id, binary=binary, port=port,
                                config=config_text, hold_packets=hold_packets)
        log.info("started NF %s (%s) on %s as its pid %d", instance_id, binary, side, started["pid"])
        return Instance(pid=started["pid"], pid_start=started["pid_start"], port=port,
                        control=f"{CONTROL_SCHEME}{side}/{instance_id}")

    def stop(self, instance_id: str, kind: str, side: str | None, port: str | None,
             pid: int | None, pid_start: int | None, *, keep_port: bool = False) -> None:
        if not self._remote(side):
            return super().stop(instance_id, kind, side, port, pid, pid_start, keep_port=keep_port)
        stopped = platform_call(self.platform.call, side, "stop_nf", id=instance_id, keep_port=keep_port)
        if not stopped["stopped"] and port and not keep_port:
            self.remove_port(side, port)   # the daemon never started it: only its port may be left

    def alive(self, instance_id: str, kind: str, pid: int | None, pid_start: int | None,
              netns: str | None, *, side: str | None = None) -> bool:
        if not self._remote(side):
            return super().alive(instance_id, kind, pid, pid_start, netns, side=side)
        return platform_call(self.platform.call, side, "alive", id=instance_id)["alive"]

    def crash(self, side: str, instance: Instance) -> None:
        if not self._remote(side):
            return super().crash(side, instance)
        self.platform.kill_process(side, instance.pid)

    def reachable(self, side: str) -> bool:
        if not self._remote(side):
            return super().reachable(side)
        try:
            self.platform.call(side, "ping")
        except PlatformError:
            return False
        return True

    def nf_control(self, control: str) -> NfControl:
        if not control.startswith(CONTROL_SCHEME):
            return super().nf_control(control)
        side, instance_id = control.removeprefix(CONTROL_SCHEME).split("/", 1)
        client = self.platform.client(side)
        return NfControl(control, REMOTE_CONTROL_TIMEOUT_S, connect=lambda: client.control(instance_id))

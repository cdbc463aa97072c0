"""Python side of UNO's network functions (nfs/).

- `NfControl`: client of an NF's control socket (stats, state, buffering).
- `decode_state`: decoder of the versioned binary state an NF exports.
- `nf_binary`: where the NF executables are.

The protocol and the state format are documented in nfs/README.md.
"""
from uno_nfs.control import ChannelBroken, NfControl, NfControlError, Packet, wait_ready
from uno_nfs.paths import nf_binary
from uno_nfs.state import Flow, FlowKey, State, StateError, decode_state

__all__ = [
    "ChannelBroken",
    "Flow",
    "FlowKey",
    "NfControl",
    "NfControlError",
    "Packet",
    "State",
    "StateError",
    "decode_state",
    "nf_binary",
    "wait_ready",
]

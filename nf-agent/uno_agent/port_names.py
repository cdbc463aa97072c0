"""Names for the NFs' switch ports, free in the inventory: neither a server's port or spare port nor the new
port a journalled migration reserved. One function over the store, so that the service (creating NFs) and the
migrator (moving them) need not ask each other."""
from __future__ import annotations

from uno_agent.errors import Conflict
from uno_agent.inventory import Inventory
from uno_agent.migration_steps import Journal
from uno_platform.spec import Names

MAX_NF_PORTS = 1000


def free_nf_port(inventory: Inventory, prefix: str) -> str:
    """The first `<prefix>n<k>` no server, spare port and migration under way uses."""
    servers = inventory.list()
    taken = ({s.port for s in servers if s.port} | {Journal.of(s.migration).new_port for s in servers if s.migration}
             | {s.spare["port"] for s in servers if s.spare})
    for k in range(MAX_NF_PORTS):
        name = f"{Names(prefix).nf_port_prefix()}{k}"
        if name not in taken:
            return name
    raise Conflict(f"all {MAX_NF_PORTS} NF port names are in use")

"""Parsing virtual flow counters and attributing them to pairs of servers."""
from uno_agent.flows import VirtualFlow, pair_counters, parse_dump_flows

DUMP = """OFPST_FLOW reply (OF1.3) (xid=0x2):
 cookie=0x0, duration=5.2s, table=0, n_packets=10, n_bytes=1000, priority=10,in_port=1 actions=output:2
 cookie=0x1, duration=5.2s, table=0, n_packets=4, n_bytes=400, in_port=2,dl_vlan=7 actions=output:1,output:3
 cookie=0x0, duration=5.2s, table=0, n_packets=7, n_bytes=700, priority=0 actions=CONTROLLER:65535
 cookie=0x0, duration=5.2s, table=1, n_packets=3, n_bytes=300, in_port=12,dl_vlan=5 actions=pop_vlan,output:13
"""


def test_parse_dump_flows():
    assert parse_dump_flows(DUMP) == [
        VirtualFlow(in_port=1, outputs=(2,), n_bytes=1000),
        VirtualFlow(in_port=2, outputs=(1, 3), n_bytes=400),
        VirtualFlow(in_port=None, outputs=(), n_bytes=700),
        VirtualFlow(in_port=12, outputs=(13,), n_bytes=300),
    ]


def test_pairs_sum_rules_and_skip_unknown_ports():
    flows = parse_dump_flows(DUMP) + [VirtualFlow(in_port=1, outputs=(2,), n_bytes=50)]
    owner = {1: "vm", 2: "nf", 3: "port:snic0:wire"}
    assert pair_counters(flows, owner) == {("vm", "nf"): 1050, ("nf", "vm"): 400,
                                           ("nf", "port:snic0:wire"): 400}

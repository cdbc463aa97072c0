"""Reading Open vSwitch's view of DPDK ports: which NF port its datapath polls (ready to deliver to), and the
drops of vhost-user ports that OpenFlow's counters leave unknown. Pure parsing, on text and rows as Open
vSwitch 3.1 gives them; the platform tests read them from live switches."""
from uno_platform.dpdk import queue_enabled
from uno_platform.losses import dpdk_port_drops

RXQ_SHOW = """Displaying last 60 seconds pmd usage %
pmd thread numa_id 0 core_id 1:
  isolated : false
  port: uno-n0            queue-id:  0 (enabled)   pmd usage: NOT AVAIL
  port: uno-n10           queue-id:  0 (disabled)  pmd usage: NOT AVAIL
  port: uno-ps0           queue-id:  0 (enabled)   pmd usage: NOT AVAIL
  overhead: NOT AVAIL"""


def test_a_port_is_up_once_a_poll_mode_thread_polls_its_queue_enabled():
    assert queue_enabled(RXQ_SHOW, "uno-n0")
    assert not queue_enabled(RXQ_SHOW, "uno-n1"), "not listed: not taken up yet"
    assert not queue_enabled(RXQ_SHOW, "uno-n10"), "listed, but its queue is disabled"


def test_a_vhost_user_ports_tx_dropped_counts_as_a_drop():
    rows = [("uno-n0", 3, {"ovs_tx_failure_drops": 0, "tx_dropped": 57, "tx_packets": 3398}),
            ("uno-ps0", 1, {"ovs_rx_qos_drops": 4, "rx_packets": 100}),
            ("uno-n1", 4, {"ovs_tx_failure_drops": 0, "tx_dropped": 0})]
    assert dpdk_port_drops(rows) == {"uno-n0": {"ovs_tx_failure_drops": 0, "tx_dropped": 57},
                                     "uno-ps0": {"ovs_rx_qos_drops": 4}}

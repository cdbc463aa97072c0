"""The verifier's model of the datapath actions that carry a frame whole over a PCIe link, against bytes Open
vSwitch 3.1 produced for the same actions (a dummy bridge, netdev-dummy/receive and its tx_pcap)."""
from __future__ import annotations

import pytest

from uno_harness.verify import datapath

# A QinQ frame of the experimental Ethertype 0x88b6, and what Open vSwitch sent for it after
# encap(mpls), set_field:5->mpls_label, encap(ethernet): zero addresses, 0x8847, label 5, bottom of stack, TTL 64.
FRAME = bytes.fromhex("aabbccddeeff11223344556688a800648100000788b6deadbeef0102030405060708090a0b0c0d0e0f10111213")
ENCAPSULATED = bytes.fromhex("000000000000000000000000884700005140") + FRAME


def test_encapsulation_in_a_clone_leaves_the_frame_as_it_was():
    actions = ("clone(add_mpls(label=5,tc=0,ttl=64,bos=1,eth_type=0x8847),"
               "push_eth(src=00:00:00:00:00:00,dst=00:00:00:00:00:00),2),3")
    eff = datapath.execute(actions, FRAME)
    assert eff.outputs == [(2, ENCAPSULATED), (3, FRAME)]
    assert eff.recirculated is None


def test_decapsulation_hands_the_inner_frame_to_the_recirculation():
    trace = ("Final flow: tun_id=0x50,in_port=2,vlan_tci=0x0000,dl_type=0x6558\n"
             "Datapath actions: pop_eth,pop_mpls(eth_type=0x6558),recirc(0x4)")
    eff = datapath.execute(datapath.datapath_actions(trace), ENCAPSULATED)
    assert eff.recirculated == FRAME and eff.outputs == []
    assert datapath.final_tun_id(trace) == 0x50


@pytest.mark.parametrize("actions", [
    "pop_eth,2", "add_mpls(label=5,tc=0,ttl=64,bos=1,eth_type=0x8847),3",
    "pop_eth,pop_mpls(eth_type=0x0800),recirc(0x1)", "push_eth(src=0:0:0:0:0:0,dst=0:0:0:0:0:0)"])
def test_a_packet_without_its_ethernet_header_is_not_guessed(actions):
    with pytest.raises(datapath.Unsupported):
        datapath.execute(actions, ENCAPSULATED)

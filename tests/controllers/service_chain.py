"""An OpenFlow 1.3 service-chain controller for os-ken: steers traffic through NFs by virtual port.

The chains come from a JSON file named by $UNO_CHAINS (re-read when it changes):

    {"chains": [{"name": "c1", "client": 1, "client_mac": "02:00:00:00:01:00",
                 "nfs": [5, 6, 7], "exit": 3}]}

For each chain, traffic from the client port goes through every NF port in order and then out
of the exit port; traffic toward the client's MAC comes back the reverse way. NFs have one port:
what they send back is steered by (in_port, eth_dst). Rules carry the chain's index in their
cookie so a changed chain replaces exactly its own rules. The app knows nothing of UNO: it only
speaks OpenFlow 1.3 to one switch, with the virtual port numbers the orchestrator gave it.
"""
from __future__ import annotations

import json
import os

from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER, set_ev_cls
from os_ken.lib import hub
from os_ken.ofproto import ofproto_v1_3

FORWARD, REVERSE = 10, 20
COOKIE_BASE = 0xC4A1_0000_0000_0000
POLL_S = 0.2


def chain_rules(chain: dict) -> list[tuple[int, dict, int]]:
    """(priority, match fields, output port) of one chain, forward then reverse."""
    hops = [chain["client"], *chain["nfs"], chain["exit"]]
    rules = [(FORWARD, {"in_port": a}, b) for a, b in zip(hops, hops[1:], strict=False)]
    back = list(reversed(hops))
    rules.append((FORWARD, {"in_port": back[0]}, back[1]))
    rules += [(REVERSE, {"in_port": a, "eth_dst": chain["client_mac"]}, b)
              for a, b in zip(back[1:-1], back[2:], strict=False)]
    return rules


class ServiceChain(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.path = os.environ.get("UNO_CHAINS", "chains.json")
        self.datapaths = {}
        self.installed: dict[int, str] = {}     # chain index -> its JSON, as installed
        self.mtime = None
        hub.spawn(self._watch)

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def switch_features(self, ev):
        dp = ev.msg.datapath
        self.logger.info("switch %016x connected", dp.id)
        self.datapaths[dp.id] = dp
        self.installed = {}
        self.mtime = None          # (re)install everything on this switch

    @set_ev_cls(ofp_event.EventOFPPortStatus, MAIN_DISPATCHER)
    def port_status(self, ev):
        msg = ev.msg
        self.logger.info("port status: reason %d port %d %s", msg.reason, msg.desc.port_no, msg.desc.name)

    def _watch(self):
        while True:
            hub.sleep(POLL_S)
            try:
                mtime = os.stat(self.path).st_mtime_ns
            except FileNotFoundError:
                continue
            if mtime != self.mtime and self.datapaths:
                self.mtime = mtime
                with open(self.path) as f:
                    self._apply(json.load(f)["chains"])

    def _apply(self, chains: list[dict]):
        wanted = {i: json.dumps(c, sort_keys=True) for i, c in enumerate(chains)}
        for dp in self.datapaths.values():
            for index in set(self.installed) | set(wanted):
                if self.installed.get(index) == wanted.get(index):
                    continue
                self._delete(dp, index)
                if index in wanted:
                    for priority, match, out in chain_rules(chains[index]):
                        self._add(dp, index, priority, match, out)
                    self.logger.info("chain %s installed", chains[index].get("name", index))
            dp.send_msg(dp.ofproto_parser.OFPBarrierRequest(dp))
        self.installed = wanted

    def _add(self, dp, index, priority, match, out):
        ofp, parser = dp.ofproto, dp.ofproto_parser
        actions = [parser.OFPActionOutput(out)]
        inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)]
        dp.send_msg(parser.OFPFlowMod(datapath=dp, cookie=COOKIE_BASE | index, priority=priority,
                                      match=parser.OFPMatch(**match), instructions=inst))

    def _delete(self, dp, index):
        ofp, parser = dp.ofproto, dp.ofproto_parser
        dp.send_msg(parser.OFPFlowMod(datapath=dp, cookie=COOKIE_BASE | index, cookie_mask=0xFFFFFFFFFFFFFFFF,
                                      table_id=ofp.OFPTT_ALL, command=ofp.OFPFC_DELETE,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))

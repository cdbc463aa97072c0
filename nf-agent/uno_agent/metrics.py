"""Prometheus metrics of the agent, read from the service at scrape time."""
from __future__ import annotations

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily


class ServiceCollector:
    """Servers by status and side, planned and measured CPU, PCIe use, operation counters, NF losses."""

    def __init__(self, service):
        self.service = service

    def collect(self):
        servers = GaugeMetricFamily("uno_servers", "VMs and NFs the agent manages",
                                    labels=["kind", "status", "side"])
        counts: dict[tuple[str, str, str], int] = {}
        for server in self.service.servers():
            key = (server.kind, server.status, server.side or "none")
            counts[key] = counts.get(key, 0) + 1
        for key, count in sorted(counts.items()):
            servers.add_metric(list(key), count)
        yield servers

        planned = GaugeMetricFamily("uno_cpu_planned_cores", "CPU cores the placement model assigns",
                                    labels=["side"])
        measured = CounterMetricFamily("uno_cpu_seconds", "CPU time used by each side's processes",
                                       labels=["side"])
        pcie = GaugeMetricFamily("uno_pcie_gbps", "traffic on each PCIe link (model)", labels=["snic"])
        for view in self.service.hypervisors():
            planned.add_metric([view["id"]], view["vcpus_used"])
            measured.add_metric([view["id"]], view["cpu_seconds"])
            if view["uno:pcie"]:
                pcie.add_metric([view["id"]], view["uno:pcie"]["used_gbps"])
        yield planned
        yield measured
        yield pcie

        operations = CounterMetricFamily("uno_operations", "operations the agent performed",
                                         labels=["operation"])
        for name, value in sorted(self.service.counters.items()):
            operations.add_metric([name], value)
        yield operations

        lost = CounterMetricFamily("uno_nf_lost_packets", "packets NFs lost (not policy drops), over all their "
                                   "instances", labels=["server", "place"])
        for server_id, nf in sorted(self.service.nf_losses().items()):
            for place in ("ring", "hold", "send"):
                lost.add_metric([server_id, place], nf[place])
        yield lost


def registry_for(service) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(ServiceCollector(service))
    return registry

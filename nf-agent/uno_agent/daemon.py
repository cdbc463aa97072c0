"""uno-agent: the NF agent daemon (REST API, monitor, migrations) for one platform.

    uno-agent --prefix uno- [--config /etc/uno/agent.json] [--listen 127.0.0.1:8774]
    uno-agent --check-config /etc/uno/agent.json

Logs go to stderr. On start it re-adopts the instances its inventory lists
(nothing is launched twice) and reports dead ones; SIGTERM stops it cleanly and
leaves the instances running.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time

import waitress

import uno_platform
from uno_agent import catalog, config
from uno_agent.api import create_app
from uno_agent.faults import FaultInjector
from uno_agent.inventory import Inventory, InventoryError
from uno_agent.launcher import Launcher, ProcessLauncher
from uno_agent.libvirt_launcher import LibvirtLauncher
from uno_agent.metrics import registry_for
from uno_agent.migration import Migrator
from uno_agent.migration_record import MigrationRecord
from uno_agent.monitor import Monitor, TrafficMatrix
from uno_agent.oneswitch import PortMapper
from uno_agent.placement import Placer
from uno_agent.port_names import free_nf_port
from uno_agent.remote_launcher import RemoteLauncher
from uno_agent.service import AgentService
from uno_agent.unoctl import OneLineParser
from uno_platform.remote import RemotePlatform

log = logging.getLogger("uno.agent")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog="uno-agent", description=__doc__.splitlines()[0])
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (keys: see nf-agent/README.md)")
    parser.add_argument("--check-config", metavar="FILE", help="validate a configuration file and exit")
    parser.add_argument("--listen", help="HOST:PORT of the REST API (default 127.0.0.1:8774)")
    parser.add_argument("--prefix", help="the platform's prefix (default uno-)")
    parser.add_argument("--state-dir", help="the platform's state directory (default /run/uno)")
    parser.add_argument("--oneswitch", metavar="URL", help="OneSwitch REST (default http://127.0.0.1:8181)")
    parser.add_argument("--token-file", help="require this file's content as X-Auth-Token")
    parser.add_argument("--database", help="inventory file (default <state-dir>/<prefix>/agent/inventory.db)")
    parser.add_argument("--no-monitor", action="store_true", help="do not poll counters or re-place")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    return parser.parse_args(argv)


def overrides(args: argparse.Namespace) -> dict:
    result: dict = {}
    for key, value in (("listen", args.listen), ("oneswitch_url", args.oneswitch),
                       ("token_file", args.token_file), ("database", args.database)):
        if value is not None:
            result[key] = value
    platform = {k: v for k, v in (("prefix", args.prefix), ("state_dir", args.state_dir)) if v is not None}
    if platform:
        result["platform"] = platform
    if args.no_monitor:
        result["monitor"] = {"enabled": False}
    return result


def build(cfg: config.AgentConfig) -> tuple[AgentService, Monitor]:
    platform = uno_platform.load(cfg.prefix, cfg.state_dir)
    flavors = catalog.load(cfg.flavors_file)
    launcher: Launcher
    if cfg.launcher == "libvirt":
        launcher = LibvirtLauncher(platform, cfg.nf_bin_dir, cfg.run_dir, cfg.libvirt_uri)
    elif platform.profile == RemotePlatform.profile:
        launcher = RemoteLauncher(platform, cfg.nf_bin_dir, cfg.run_dir)
    else:
        launcher = ProcessLauncher(platform, cfg.nf_bin_dir, cfg.run_dir)
    portmap = PortMapper(cfg.oneswitch_url, cfg.oneswitch_token)
    traffic = TrafficMatrix(cfg.monitor.smoothing)
    service = AgentService(
        platform=platform, inventory=Inventory(cfg.database), flavors=flavors, launcher=launcher,
        portmap=portmap,
        placer=Placer(platform.description, flavors, threshold_cores=cfg.monitor.threshold_cores,
                      dampening_s=cfg.monitor.dampening_s),
        traffic=traffic, flows_target=cfg.oneswitch_openflow)
    inventory = service.inventory

    def free_port() -> str:
        return free_nf_port(inventory, platform.prefix)

    if cfg.migration_faults:  # tests only: failures injected into the migrator's view of the parts
        faults = FaultInjector(cfg.migration_faults, platform)
        service.migrator = Migrator(MigrationRecord(inventory), faults.launcher(launcher), faults.portmap(portmap),
                                    free_port=free_port, nf_control=faults.nf_control(launcher.nf_control),
                                    on_step=faults.on_step)
    else:
        service.migrator = Migrator(MigrationRecord(inventory), launcher, portmap, free_port=free_port)
    monitor = Monitor(service.read_counters, traffic,
                      lambda: service.reoptimize(apply=True, trigger="monitor"),
                      interval_s=cfg.monitor.interval_s, replace_every=cfg.monitor.replace_every,
                      clock=time.time)
    return service, monitor


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        if args.check_config:
            config.load(args.check_config)
            catalog.load(config.load(args.check_config).flavors_file)
            print(f"{args.check_config}: ok")
            return 0
        cfg = config.load(args.config, overrides(args))
        service, monitor = build(cfg)
    except (config.ConfigError, catalog.CatalogError, uno_platform.PlatformError, InventoryError) as exc:
        print(f"uno-agent: {exc}", file=sys.stderr)
        return 2
    report = service.recover()
    log.info("inventory: %d adopted, %d dead, %d half-built removed, %d on sides out of reach",
             len(report["adopted"]), len(report["dead"]), len(report["removed"]), len(report["unreachable"]))
    app = create_app(service, token=cfg.token, registry=registry_for(service))
    server = waitress.create_server(app, host=cfg.host, port=cfg.port, threads=8, ident="uno-agent")
    stopping = threading.Event()

    def stop(signum, _frame):
        log.info("signal %d: stopping", signum)
        stopping.set()
        server.close()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if cfg.monitor.enabled:
        monitor.start()
    log.info("uno-agent for platform %s listening on http://%s:%s/", cfg.prefix, cfg.host,
             server.effective_port)
    try:
        server.run()
    except OSError:
        if not stopping.is_set():
            raise
    finally:
        monitor.stop()
        service.close()
        service.inventory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

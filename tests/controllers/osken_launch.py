"""Run os-ken applications: the project's replacement for the osken-manager script.

os-ken 4.x ships no manager script, so tests and demos start a controller with

    python tests/controllers/osken_launch.py --ofp-listen-host 127.0.0.1 \
        --ofp-tcp-listen-port 6653 tests/controllers/l2_learning.py

Every os-ken option (--ofp-*, --echo-request-interval, ...) is accepted; the positional
arguments are application modules or files. Logs go to stderr.
"""
from __future__ import annotations

import sys

from os_ken.lib import hub

hub.patch(thread=False)

# The rest is imported after monkey patching, as osken-manager does. app_manager comes first: importing
# os_ken.controller.controller first is a circular import in os-ken 4.2.2.
import os_ken.base.app_manager  # noqa: E402, F401, I001
import os_ken.controller.controller  # noqa: E402, F401  (registers the --ofp-* options)
from os_ken import cfg, log  # noqa: E402
from os_ken.base.app_manager import AppManager  # noqa: E402

CONF = cfg.CONF
CONF.register_cli_opts([
    cfg.ListOpt("app-lists", default=[], help="application modules or files", positional=True),
])


def main(argv: list[str] | None = None) -> int:
    CONF(args=sys.argv[1:] if argv is None else argv, project="os_ken", version="osken_launch")
    log.init_log()
    apps = CONF.app_lists or ["os_ken.controller.ofp_handler"]
    AppManager.run_apps(apps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

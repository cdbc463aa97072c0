"""Python side of OneSwitch: the `unoctl rules` command, a REST client, the state-file tool.

The Java virtual switch lives in oneswitch/src; this package talks to it (REST, OpenFlow) and to the
physical Open vSwitch daemons (their control sockets), never to its internals.
"""

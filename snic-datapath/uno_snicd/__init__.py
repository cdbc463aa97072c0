"""The sNIC daemon (`uno-snicd`) and its client.

It runs on the sNIC, a machine of its own, and does there what the host's agent cannot: it creates NF ports
on the sNIC's switch, starts and stops NFs, reads the sNIC's CPU use, and carries NF control and state between
the agent and the NFs. The agent reaches it over mutual TLS (`wire`); it answers no other client.

Standard library only: it runs with the sNIC's own Python.
"""

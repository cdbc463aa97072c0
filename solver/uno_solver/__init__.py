"""UNO NF placement (paper §3.2.1, Algorithm 1): host or smart NIC for every NF.

    from uno_solver import Graph, solve
    graph = Graph.from_json(text)          # raises GraphError naming the bad field
    placement = solve(graph)                # method="fast" | "ilp" | "brute", time_limit, gap
    print(placement.status, placement.location, placement.to_json())
"""
from .api import DEFAULT_GAP, METHODS, solve
from .graph import Graph, GraphError, schema
from .placement import Placement, SnicUse

__all__ = ["DEFAULT_GAP", "METHODS", "Graph", "GraphError", "Placement", "SnicUse", "schema", "solve"]

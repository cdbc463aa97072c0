"""The solver's entry point: `solve(graph, method=..., time_limit=..., gap=...) -> Placement`."""
from __future__ import annotations

import time
from collections.abc import Callable

from . import brute, ilp
from .fast import solver as fast
from .graph import Graph
from .placement import Placement, report
from .problem import compile_graph

METHODS = ("fast", "ilp", "brute")
DEFAULT_GAP = 1e-4


def solve(graph: Graph, method: str = "fast", time_limit: float | None = None, gap: float = DEFAULT_GAP,
          *, backend: str = "cbc", clock: Callable[[], float] = time.monotonic) -> Placement:
    """Place every node of `graph` on the host or an sNIC, minimising the objective.

    method: "fast" (exact decomposition + LP bound + HiGHS, default), "ilp" (the reference model,
        Algorithm 1 generalised, solved by CBC or, with backend="highs", by HiGHS through PuLP) or
        "brute" (enumeration; small graphs only, raises ValueError above 4M placements).
    time_limit: seconds, or None for no limit ("brute" ignores it). When it stops the search, the
        result is "feasible" with a certified `gap`, or "unknown" if no placement was found yet.
    gap: relative optimality tolerance: "optimal" means objective - bound <= gap * |objective|
        (or <= 1e-6). 0 asks for the exact optimum.
    An infeasible problem is not an error: the result says "infeasible" and why.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}' (have: {', '.join(METHODS)})")
    if not gap >= 0:
        raise ValueError(f"gap must be >= 0, got {gap}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
    start = clock()
    problem = compile_graph(graph)
    if method == "fast":
        outcome = fast.solve(problem, gap, time_limit, clock)
    elif method == "ilp":
        outcome = ilp.solve(problem, gap, time_limit, backend)
    else:
        outcome = brute.solve(problem)
    return report(problem, outcome, method, gap, clock() - start)

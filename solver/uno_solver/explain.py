"""Why a problem has no feasible placement: which limit cannot be met, with the numbers.

Checked in order, each on its own:
1. pinned nodes alone exceed an sNIC's capacity D for some resource;
2. the minimum traffic over a PCIe link exceeds its limit T: a minimum s-t cut between the nodes
   that must be on that sNIC and those that cannot be, the others free (an LP; a cut LP is integral);
3. otherwise every limit can be met alone but not all together.
"""
from __future__ import annotations

import numpy as np

from . import highs
from .problem import FEAS_TOL, Problem

_LIST = 4  # how many node ids an explanation names


def explain(problem: Problem) -> str:
    reasons = _pinned(problem) + _pcie(problem)
    if reasons:
        return "; ".join(reasons)
    return ("each limit can be met on its own, but no placement meets all of them at once: the PCIe "
            "limits (pcie_gbps) and the sNIC capacities conflict")


def _pinned(problem: Problem) -> list[str]:
    reasons = []
    for s, snic in enumerate(problem.locations[1:]):
        only_here = problem.allowed[:, s + 1] & (problem.allowed.sum(axis=1) == 1)
        need = problem.snic_need[only_here, s].sum(axis=0)
        for r, res in enumerate(problem.resources):
            if need[r] > problem.capacity[s, r] + FEAS_TOL:
                reasons.append(f"{snic}.capacity.{res}: the nodes pinned to {snic} "
                               f"({_names(problem, only_here & (problem.snic_need[:, s, r] > 0))}) "
                               f"need {need[r]:g}, more than the capacity {problem.capacity[s, r]:g}")
    return reasons


def _pcie(problem: Problem) -> list[str]:
    reasons = []
    for s, snic in enumerate(problem.locations[1:]):
        least = min_link_load(problem, s)
        if least > problem.pcie_limit[s] + FEAS_TOL:
            reasons.append(f"{snic}.pcie_gbps: whatever the placement, at least {least:g} Gbps cross "
                           f"the PCIe link of {snic} (minimum cut around the nodes pinned to it), "
                           f"more than its limit {problem.pcie_limit[s]:g}")
    return reasons


def min_link_load(problem: Problem, s: int) -> float:
    """Least traffic over PCIe link s over all placements allowed by the pins (other limits ignored).

    b_i = 1 when node i is on sNIC s; fixed to 1 for nodes that can only be there and to 0 for
    nodes that cannot be; y_e >= |b_u - b_v| marks a cut edge; minimise sum_e gbps_e y_e.
    """
    n, e = problem.n, len(problem.edge_u)
    here = problem.allowed[:, s + 1]
    lower = (here & (problem.allowed.sum(axis=1) == 1)).astype(float)
    upper = here.astype(float)
    if e == 0:
        return 0.0
    y = n + np.arange(e)
    rows = [2 * np.arange(e)] * 3 + [2 * np.arange(e) + 1] * 3
    cols = [problem.edge_u, problem.edge_v, y, problem.edge_u, problem.edge_v, y]
    vals = [np.ones(e), -np.ones(e), -np.ones(e), -np.ones(e), np.ones(e), -np.ones(e)]
    lp = highs.model(np.r_[np.zeros(n), problem.edge_gbps], np.full(2 * e, -highs.INF), np.zeros(2 * e),
                     rows, cols, vals)
    lp.col_lower_ = np.r_[lower, np.zeros(e)]
    lp.col_upper_ = np.r_[upper, np.ones(e)]
    h = highs.new(60.0)
    h.passModel(lp)
    h.run()
    return float(h.getInfo().objective_function_value)


def _names(problem: Problem, mask: np.ndarray) -> str:
    ids = [problem.node_ids[i] for i in np.flatnonzero(mask)]
    more = f" and {len(ids) - _LIST} more" if len(ids) > _LIST else ""
    return ", ".join(ids[:_LIST]) + more

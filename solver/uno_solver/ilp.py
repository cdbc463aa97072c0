"""Reference model: Algorithm 1 of the UNO paper as an ILP in PuLP, and its generalisations.

With one sNIC and one resource this is Algorithm 1 term for term:

    minimise    sum_i h_i p_i                          p_i = 1: node i on the host
    subject to  sum_(i,j) t_ij d_ij <= T               PCIe traffic
                sum_i n_i (1 - p_i) <= D               sNIC capacity
                d_ij >= p_i - p_j,  d_ij >= p_j - p_i  d_ij = 1: edge (i,j) is cut
                p_i = 1 for VMs, p_i = 0 for ports (and for operator pins)
                p_i, d_ij binary

(One d per node pair carrying traffic in either direction, with t = t_ij + t_ji: the paper's two
d_ij, d_ji would both equal |p_i - p_j|.) The paper defines d_ij for i on the host and j on the
sNIC only; traffic crosses PCIe in both directions, so we read it as "i and j on different sides",
as its next sentence says ("the vertices i and j must be in different partitions").

Generalisations: R resources (a capacity row per resource); k sNICs (q_is = 1: node i on sNIC s,
p_i + sum_s q_is = 1, d_ijs >= |q_is - q_js| counts edge (i,j) on link s, so traffic between two
sNICs crosses both links); the migration cost and the secondary PCIe costs, all carried by
`Problem.loc_cost` and `Problem.edge_cost`.

Solved by the CBC bundled with PuLP (or HiGHS through PuLP). PuLP's status says "Optimal" even
when CBC stopped on its time limit, so the outcome is read from `sol_status` (with `status` only
to recognise "Integer infeasible"), and the bound from CBC's log.
"""
from __future__ import annotations

import math
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pulp

from .outcome import ABS_GAP, Outcome
from .problem import Problem

BACKENDS = ("cbc", "highs")


def build(problem: Problem) -> tuple[pulp.LpProblem, list[list[pulp.LpAffineExpression]]]:
    """The ILP and, per node, the 0/1 expression of each location (host first)."""
    model = pulp.LpProblem("uno_placement", pulp.LpMinimize)
    p = [model.add_variable(f"p_{i}", cat=pulp.LpBinary) for i in range(problem.n)]
    if problem.k == 1:
        at = [[p[i], 1 - p[i]] for i in range(problem.n)]
    else:
        at = []
        for i in range(problem.n):
            q = [model.add_variable(f"q_{i}_{s}", cat=pulp.LpBinary) for s in range(problem.k)]
            model += p[i] + pulp.lpSum(q) == 1, f"one_place_{i}"
            at.append([p[i]] + q)
    for i, j in zip(*np.nonzero(~problem.allowed), strict=False):
        model += at[i][j] == 0, f"pin_{i}_{j}"

    objective = [float(problem.loc_cost[i, j]) * at[i][j]
                 for i in range(problem.n) for j in range(problem.k + 1) if problem.loc_cost[i, j]]
    load: list[list[pulp.LpAffineExpression]] = [[] for _ in range(problem.k)]
    for e, (u, v) in enumerate(zip(problem.edge_u, problem.edge_v, strict=False)):
        for s in range(problem.k):
            d = model.add_variable(f"d_{e}_{s}", cat=pulp.LpBinary)
            model += d >= at[u][s + 1] - at[v][s + 1], f"cut_{e}_{s}_a"
            model += d >= at[v][s + 1] - at[u][s + 1], f"cut_{e}_{s}_b"
            load[s].append(float(problem.edge_gbps[e]) * d)
            if problem.edge_cost[e]:
                objective.append(float(problem.edge_cost[e]) * d)
    model += pulp.lpSum(objective)
    for s in range(problem.k):
        model += pulp.lpSum(load[s]) <= float(problem.pcie_limit[s]), f"pcie_{s}"
        for r in range(len(problem.resources)):
            use = [float(problem.snic_need[i, s, r]) * at[i][s + 1]
                   for i in range(problem.n) if problem.snic_need[i, s, r]]
            model += pulp.lpSum(use) <= float(problem.capacity[s, r]), f"capacity_{s}_{r}"
    return model, at


def solve(problem: Problem, rel_gap: float, time_limit: float | None, backend: str = "cbc",
          cbc_preprocess: bool = False) -> Outcome:
    """Solve the ILP. CBC's preprocessing is off unless asked for: the CBC 2.10.3 bundled with PuLP
    returns wrong "optimal" placements with it on some of our small graphs (a known CglProbing
    bug, coin-or/Cbc#293); the benchmark turns it on to time CBC as shipped."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown ILP backend '{backend}' (have: {', '.join(BACKENDS)})")
    model, at = build(problem)
    with tempfile.TemporaryDirectory(prefix="uno-ilp-") as tmp:
        log = Path(tmp) / "solver.log"
        if backend == "cbc":
            with warnings.catch_warnings():
                # PuLP 3.3 deprecates its bundled CBC in favour of PuLP 4's separate package;
                # the bundled one is what this project pins (DESIGN.md, "Libraries").
                warnings.simplefilter("ignore", DeprecationWarning)
                # One thread is CBC's default. With `-threads 1` it starts a worker thread anyway, and about one
                # run in 150 then waited 10 s at exit for that thread's sleep.
                solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=rel_gap, gapAbs=ABS_GAP,
                                           logPath=str(log),
                                           options=[] if cbc_preprocess else ["preprocess off"])
        else:
            solver = pulp.HiGHS(msg=False, timeLimit=time_limit, gapRel=rel_gap, gapAbs=ABS_GAP, threads=1)
        model.solve(solver)
        text = log.read_text() if log.exists() else ""
    # CBC reports a MIP without integer solution as "Integer infeasible": status Infeasible but
    # sol_status "no solution found" (which also means "stopped on the time limit").
    if pulp.LpSolutionInfeasible in (model.sol_status, model.status):
        return Outcome(None, math.inf)
    found = model.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    if backend == "highs":
        found = found and model.solverModel.getSolution().value_valid
        bound = model.solverModel.getInfo().mip_dual_bound
    else:
        bound = _cbc_bound(text, model, proven=model.sol_status == pulp.LpSolutionOptimal)
    if not found:
        return Outcome(None, bound)
    return Outcome(np.array([_location(row, problem.allowed[i]) for i, row in enumerate(at)]), bound)


def _location(row: list[pulp.LpAffineExpression], allowed: np.ndarray) -> int:
    """The location whose 0/1 expression is 1. A node in no row and without cost is left out of
    the model file by PuLP (its value stays None): any allowed location is then as good."""
    values = [pulp.value(x) for x in row]
    if any(v is None for v in values):
        return int(np.argmax(allowed))
    return int(np.argmax(values))


_CBC_VALUE = re.compile(r"^(Objective value|Lower bound|Best possible):\s*(-?[\d.eE+-]+)", re.MULTILINE)


def _cbc_bound(log: str, model: pulp.LpProblem, proven: bool) -> float:
    """CBC's final lower bound from its log, shifted by any objective constant CBC leaves out;
    when the log gives none: the objective if CBC proved it (within the requested gap), else -inf."""
    values = {name: float(value) for name, value in _CBC_VALUE.findall(log)}
    bound = values.get("Lower bound", values.get("Best possible"))
    objective = pulp.value(model.objective)
    if objective is None:  # no solution values, or an objective without terms
        objective = model.objective.constant if model.sol_status == pulp.LpSolutionOptimal else None
    if bound is None:
        return float(objective) if proven and objective is not None else -math.inf
    if objective is not None and "Objective value" in values:
        bound += float(objective) - values["Objective value"]
    return bound

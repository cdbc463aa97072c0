"""The result of a solve: where every node runs, what it uses, and how sure the solver is."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .explain import explain
from .outcome import ABS_GAP, Outcome, within
from .problem import Problem, evaluate

RESULT_SCHEMA_ID = "uno-placement/1"
STATUSES = ("optimal", "feasible", "infeasible", "unknown")


@dataclass(frozen=True)
class SnicUse:
    """One sNIC: resource usage against capacity D, PCIe traffic (Gbps) against its limit T."""

    usage: Mapping[str, float]
    capacity: Mapping[str, float]
    pcie_gbps: float
    pcie_limit: float


@dataclass(frozen=True)
class Placement:
    """Outcome of a solve.

    status: "optimal" (objective proven within the requested gap of the optimum), "feasible"
    (a placement meeting every limit, optimality gap `gap` not closed), "infeasible" (proven: no
    placement meets the limits; `explanation` says which) or "unknown" (stopped before finding a
    placement). Invariant: `location` names every node exactly when status is optimal or feasible,
    and then host/snics/objective describe that placement; `bound` <= `objective`.
    """

    status: str
    method: str
    objective: float | None
    bound: float | None
    gap: float | None
    location: Mapping[str, str] = field(default_factory=dict)
    host: Mapping[str, float] = field(default_factory=dict)
    snics: Mapping[str, SnicUse] = field(default_factory=dict)
    moved: tuple[str, ...] = ()
    explanation: str = ""
    seconds: float = 0.0

    @property
    def placed(self) -> bool:
        return self.status in ("optimal", "feasible")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RESULT_SCHEMA_ID,
            "status": self.status,
            "method": self.method,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "seconds": self.seconds,
            "placement": dict(self.location),
            "host": dict(self.host),
            "snics": {sid: {"usage": dict(u.usage), "capacity": dict(u.capacity),
                            "pcie_gbps": u.pcie_gbps, "pcie_limit": u.pcie_limit}
                      for sid, u in self.snics.items()},
            "moved": list(self.moved),
            "explanation": self.explanation,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def report(problem: Problem, outcome: Outcome, method: str, rel_gap: float, seconds: float) -> Placement:
    """Turn what a solver proved into a Placement (usage recomputed from the placement itself)."""
    if outcome.loc is None:
        if outcome.infeasible:
            return Placement("infeasible", method, None, None, None, explanation=explain(problem),
                             seconds=seconds)
        bound = outcome.bound if math.isfinite(outcome.bound) else None
        note = "" if bound is None else f"; the optimum is at least {bound:g}"
        return Placement("unknown", method, None, bound, None, seconds=seconds,
                         explanation=f"stopped by the time limit before finding a placement{note}")
    ev = evaluate(problem, outcome.loc)
    if not ev.feasible(problem):
        raise RuntimeError(f"{method} solver returned a placement over a limit: {'; '.join(ev.violations(problem))}")
    if math.isfinite(outcome.bound):
        bound = min(outcome.bound, ev.objective)
        gap = max(0.0, ev.objective - bound)
        rel = 0.0 if gap <= ABS_GAP else gap / max(abs(ev.objective), ABS_GAP)
        status = "optimal" if within(ev.objective, bound, rel_gap) else "feasible"
    else:  # stopped before any bound (the LP did not finish): a placement, no gap known
        bound, rel, status = None, None, "feasible"
    locations = problem.locations
    res = problem.resources
    return Placement(
        status=status, method=method, objective=ev.objective, bound=bound, gap=rel,
        location={node: locations[j] for node, j in zip(problem.node_ids, outcome.loc, strict=False)},
        host={r: float(ev.host[i]) for i, r in enumerate(res)},
        snics={snic: SnicUse(usage={r: float(ev.snic[s, i]) for i, r in enumerate(res)},
                             capacity={r: float(problem.capacity[s, i]) for i, r in enumerate(res)},
                             pcie_gbps=float(ev.pcie[s]), pcie_limit=float(problem.pcie_limit[s]))
               for s, snic in enumerate(locations[1:])},
        moved=tuple(node for node, j, cur in zip(problem.node_ids, outcome.loc, problem.current, strict=False)
                    if cur >= 0 and j != cur),
        seconds=seconds,
    )

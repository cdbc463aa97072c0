"""What a solver proves about a problem, before it is reported as a Placement."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Two objectives closer than this are equal (objective units: weighted host resources).
ABS_GAP = 1e-6


@dataclass(frozen=True, eq=False)
class Outcome:
    """`loc`: a feasible placement (N,) of location indices, or None when none was found.
    `bound`: a proven lower bound on the optimum; inf means proven infeasible, -inf nothing proven.
    """

    loc: np.ndarray | None
    bound: float

    @property
    def infeasible(self) -> bool:
        return self.loc is None and self.bound == math.inf


def within(objective: float, bound: float, rel_gap: float) -> bool:
    """True when `objective` (finite) is proven within the tolerance of the optimum."""
    return math.isfinite(objective) and objective - bound <= max(ABS_GAP, rel_gap * abs(objective))

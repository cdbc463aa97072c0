"""Small helpers to hand array-built models to HiGHS (highspy)."""
from __future__ import annotations

import highspy
import numpy as np

INF = highspy.kHighsInf


def new(time_limit: float) -> highspy.Highs:
    """A silent, single-threaded, deterministic HiGHS instance with a time limit (seconds)."""
    h = highspy.Highs()
    h.silent()
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", max(float(time_limit), 1e-3))
    return h


def model(cost: np.ndarray, row_lower: np.ndarray, row_upper: np.ndarray, rows: list[np.ndarray],
          cols: list[np.ndarray], vals: list[np.ndarray], offset: float = 0.0) -> highspy.HighsLp:
    """An LP with columns in [0, 1] from (row, col, value) triplets; repeated entries add up."""
    n_col, n_row = len(cost), len(row_lower)
    row, col, val = (np.concatenate(a) if a else np.zeros(0) for a in (rows, cols, vals))
    key, slot = np.unique(col.astype(np.int64) * n_row + row.astype(np.int64), return_inverse=True)
    val = np.bincount(slot, weights=val, minlength=len(key))
    keep = val != 0
    key, val = key[keep], val[keep]
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_col, n_row
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.offset_ = float(offset)
    lp.col_lower_, lp.col_upper_ = np.zeros(n_col), np.ones(n_col)
    lp.row_lower_, lp.row_upper_ = np.asarray(row_lower, float), np.asarray(row_upper, float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(key // n_row, np.arange(n_col + 1)).astype(np.int32)
    lp.a_matrix_.index_ = (key % n_row).astype(np.int32)
    lp.a_matrix_.value_ = val
    return lp

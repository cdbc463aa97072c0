"""Benchmark of the placement solver (issue 5).

(a) Fig. 16 of the UNO paper (§5.3): 9 VMs, 18 DPI NFs, D = 36 sNIC cores, DPI needing 5 host or
    10 sNIC cores per 9 Gbps, T swept from 10 to 100 Gbps. Writes solver_fig16.json and
    solver_fig16.png (host cores, sNIC cores, PCIe use against T).
(b) The fast solver against plain CBC (PuLP's bundled CBC on the reference model, as shipped) on
    the same service-chain-like, random and realistic (`instances.realistic_graph`: tenants' chains,
    shared NFs, 1-2 sNICs) graphs of 100, 500, 2,000 and 5,000 nodes, tight and
    loose T, three seeds each, all in this run. Writes solver.json with per-instance times and
    certified gaps, the root (LP) bound and how far below the best placement it is, and per-size
    medians and ratios. Every graph is also solved with the NF agent's 2 s limit (`fast_2s`),
    with how far its placement is above the best one any run found.

    BENCH=solver make bench        or: BENCH=solver .venv/bin/python -m bench.run
(c) Warm re-placement (issue 23), not part of `make bench`: on realistic hosts, every rate changed by
    a factor drawn from 1 - WARM_CHANGE .. 1 + WARM_CHANGE, then solved cold and warm (every free node's
    `current` is the optimum before the change), in the same run. Writes solver_warm.json.

    .venv/bin/python -m bench.bench_solver --warm [--sizes 100 500] [--seeds 0 1 2]
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import time
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

from uno_solver import (  # noqa: E402
    Graph,
    ilp,  # noqa: E402
    solve,
)
from uno_solver.fast.solver import root_bound  # noqa: E402
from uno_solver.instances import (  # noqa: E402
    FIG16_SNIC_CORES,
    chain_graph,
    fig16_graph,
    random_graph,
    realistic_graph,
)
from uno_solver.placement import Placement, report  # noqa: E402
from uno_solver.problem import compile_graph  # noqa: E402

SIZES = (100, 500, 2000, 5000)
SEEDS = (0, 1, 2)
FAMILIES: dict[str, Callable[[int, int, bool], Graph]] = {"chain": chain_graph, "random": random_graph,
                                                          "realistic": realistic_graph}
EXACT_GAP = 1e-4          # "optimal", as MIP solvers (CPLEX, HiGHS) define it by default
COARSE_GAP = 1e-2         # the 1% target for the large graphs
COARSE_SIZES = (2000, 5000)
TIME_LIMIT = 30.0         # per solve, both solvers
TARGET_LIMIT = 2.0        # the 5,000-node target (within 1% in at most 2 s), and the NF agent's limit
FIG16_T = tuple(range(10, 101, 5))
# Secondary cost per PCIe Gbps in the Fig. 16 sweep: far below one DPI's host cores, so it only
# picks, among placements with the fewest host cores, the one that uses the least PCIe.
FIG16_TIE_BREAK = 1e-4


def main(results_dir: pathlib.Path) -> dict[str, Any]:
    fig = fig16(results_dir)
    timing = compare(results_dir)
    return {"fig16": {k: fig[k] for k in ("knee_gbps", "trend_holds", "sentence")}, **timing["summary"]}


# ---------------------------------------------------------------- (a) Fig. 16

def fig16(results_dir: pathlib.Path) -> dict[str, Any]:
    rows = []
    for t in FIG16_T:
        doc = fig16_graph(float(t)).to_dict()
        doc["objective"]["pcie_gbps"] = FIG16_TIE_BREAK
        graph = Graph.from_dict(doc)
        fast = solve(graph, "fast", gap=0.0)
        ref = solve(graph, "ilp", gap=0.0)
        rows.append({
            "pcie_limit_gbps": t, "status": fast.status,
            "host_cores": round(fast.host["cpu"], 4),
            "snic_cores": round(fast.snics["snic0"].usage["cpu"], 4),
            "pcie_gbps": round(fast.snics["snic0"].pcie_gbps, 4),
            "dpis_on_snic": sum(1 for n, where in fast.location.items() if n.startswith("dpi") and where != "host"),
            "ilp_agrees": ref.status == fast.status and abs(ref.objective - fast.objective) <= 1e-6,
        })
    host = [r["host_cores"] for r in rows]
    falling = all(a >= b - 1e-9 for a, b in zip(host, host[1:], strict=False)) and host[0] > host[-1]
    knee = next(r["pcie_limit_gbps"] for r in rows if r["host_cores"] <= host[-1] + 1e-9)
    full = rows[-1]["snic_cores"]
    # past the knee more PCIe bandwidth goes unused: the sNIC's capacity is what binds
    unused = all(r["pcie_gbps"] < r["pcie_limit_gbps"] - 1e-6 for r in rows if r["pcie_limit_gbps"] > knee)
    holds = falling and knee < rows[-1]["pcie_limit_gbps"] and unused
    sentence = (f"Host cores fall from {host[0]:.4g} at T = {rows[0]['pcie_limit_gbps']} Gbps to {host[-1]:.4g} at "
                f"T = {knee} Gbps and stay flat beyond, where the sNIC is full ({full:.4g} of "
                f"{FIG16_SNIC_CORES:g} cores): the paper's trend {'holds' if holds else 'does not hold'}, "
                f"with the knee at {knee} Gbps instead of about 80 Gbps.")
    result = {"graph": "instances.fig16_graph: per VM a north-south DPI (wire <-> VM, 0.3 + 0.2 Gbps) and an "
                       "east-west DPI on its traffic to the next VM of a ring (2 to 6 Gbps)",
              "rows": rows, "knee_gbps": knee, "trend_holds": holds, "sentence": sentence}
    (results_dir / "solver_fig16.json").write_text(json.dumps(result, indent=2) + "\n")
    _plot(rows, results_dir / "solver_fig16.png")
    return result


def _plot(rows: list[dict[str, Any]], path: pathlib.Path) -> None:
    t = [r["pcie_limit_gbps"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    left.plot(t, [r["host_cores"] for r in rows], "o-", label="x86 host cores")
    left.plot(t, [r["snic_cores"] for r in rows], "s-", label="sNIC cores")
    left.axhline(FIG16_SNIC_CORES, color="grey", linestyle=":", label=f"sNIC capacity D = {FIG16_SNIC_CORES:g}")
    left.set(xlabel="Max PCIe bandwidth T (Gbps)", ylabel="CPU cores", title="(a) core usage")
    left.legend(fontsize=8)
    right.plot(t, [r["pcie_gbps"] for r in rows], "o-", label="PCIe traffic")
    right.plot(t, t, color="grey", linestyle=":", label="limit T")
    right.set(xlabel="Max PCIe bandwidth T (Gbps)", ylabel="Gbps", title="(b) PCIe utilisation")
    right.legend(fontsize=8)
    fig.suptitle("UNO placement, 9 VMs and 18 DPI NFs (cf. paper Fig. 16)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------- (b) timing

def _cbc(graph: Graph, gap: float) -> Placement:
    """Plain CBC: the reference model with CBC's defaults (preprocessing on), as PuLP ships it."""
    start = time.monotonic()
    problem = compile_graph(graph)
    outcome = ilp.solve(problem, gap, TIME_LIMIT, backend="cbc", cbc_preprocess=True)
    return report(problem, outcome, "ilp", gap, time.monotonic() - start)


def _row(p: Placement) -> dict[str, Any]:
    return {"seconds": round(p.seconds, 4), "status": p.status, "objective": p.objective,
            "bound": p.bound, "gap": p.gap}


def compare(results_dir: pathlib.Path) -> dict[str, Any]:
    instances = []
    for n in SIZES:
        for family, make in FAMILIES.items():
            for tight in (True, False):
                for seed in SEEDS:
                    graph = make(n, seed, tight)
                    gap = COARSE_GAP if n in COARSE_SIZES else EXACT_GAP
                    row: dict[str, Any] = {"nodes": n, "family": family, "T": "tight" if tight else "loose",
                                           "seed": seed, "gap_asked": gap}
                    row["fast"] = _row(solve(graph, "fast", time_limit=TIME_LIMIT, gap=gap))
                    row["fast_2s"] = _row(solve(graph, "fast", time_limit=TARGET_LIMIT, gap=gap))
                    row["cbc"] = _row(_cbc(graph, gap))
                    _above_best(row)
                    row["root_bound"] = root_bound(compile_graph(graph), TIME_LIMIT)
                    row["root_gap"] = _root_gap(row)
                    row["ratio"] = round(row["cbc"]["seconds"] / max(row["fast"]["seconds"], 1e-6), 2)
                    row["agree"] = _agree(row["fast"], row["cbc"], gap)
                    instances.append(row)
                    print(f"  {n:5d} {family:6s} {row['T']:5s} seed {seed}: fast {row['fast']['seconds']:.3f} s "
                          f"{row['fast']['status']} gap {_pct(row['fast']['gap'])}; cbc {row['cbc']['seconds']:.3f} s "
                          f"{row['cbc']['status']} gap {_pct(row['cbc']['gap'])}", flush=True)
    by_size = {str(n): _summarise([r for r in instances if r["nodes"] == n]) for n in SIZES}
    by_group = [{"nodes": n, "family": f, "T": t, **_summarise([r for r in instances if
                 (r["nodes"], r["family"], r["T"]) == (n, f, t)])}
                for n in SIZES for f in FAMILIES for t in ("tight", "loose")]
    summary = {"by_size": by_size, "targets": _targets(instances)}
    result = {"config": {"sizes": SIZES, "seeds": SEEDS, "families": list(FAMILIES), "exact_gap": EXACT_GAP,
                         "coarse_gap": COARSE_GAP, "coarse_sizes": COARSE_SIZES, "time_limit_s": TIME_LIMIT,
                         "target_limit_s": TARGET_LIMIT, "cbc": "PuLP 3.3.2 bundled CBC 2.10.3, defaults, 1 thread",
                         "fast": "uno_solver fast (HiGHS 1.15.1, 1 thread)"},
              "summary": summary, "by_group": by_group, "instances": instances}
    (results_dir / "solver.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def _root_gap(row: dict[str, Any]) -> float | None:
    """How far the root (LP) bound is below the best placement either solver found: the part of the
    gap that branch and bound (or a stronger relaxation) has to close."""
    found = [row[s]["objective"] for s in ("fast", "fast_2s", "cbc") if s in row and row[s]["objective"] is not None]
    if not found:
        return None
    best = min(found)
    return (best - row["root_bound"]) / abs(best) if best else 0.0


def _above_best(row: dict[str, Any]) -> None:
    """Each run's objective relative to the best placement any run found (0: it found that one)."""
    runs = [row[s] for s in ("fast", "fast_2s", "cbc") if row[s]["objective"] is not None]
    if not runs:
        return
    best = min(r["objective"] for r in runs)
    for r in runs:
        r["above_best"] = (r["objective"] - best) / abs(best) if best else 0.0


def _agree(fast: dict[str, Any], cbc: dict[str, Any], gap: float) -> bool | None:
    """Both found placements: does each lie within the other's proven bound (up to the gap)?"""
    if fast["objective"] is None or cbc["objective"] is None:
        return None
    slack = 2 * gap * max(abs(fast["objective"]), abs(cbc["objective"])) + 1e-6
    def floor(r: dict[str, Any]) -> float:  # no bound (stopped before the LP's) proves nothing
        return -math.inf if r["bound"] is None else r["bound"]
    return fast["objective"] >= floor(cbc) - slack and cbc["objective"] >= floor(fast) - slack


def _summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"instances": len(rows)}
    for solver in ("fast", "fast_2s", "cbc"):
        runs = [r[solver] for r in rows if solver in r]
        if not runs:
            continue
        gaps = [r["gap"] for r in runs if r["gap"] is not None]
        out[solver] = {
            "median_s": round(statistics.median(r["seconds"] for r in runs), 4),
            "max_s": round(max(r["seconds"] for r in runs), 4),
            "within_gap": sum(r["status"] == "optimal" for r in runs),
            "median_gap": statistics.median(gaps) if gaps else None,
            "max_gap": max(gaps) if gaps else None,
            "no_placement": sum(r["objective"] is None for r in runs),
        }
        above = [r["above_best"] for r in runs if "above_best" in r]
        if above:
            out[solver]["median_above_best"] = statistics.median(above)
            out[solver]["max_above_best"] = max(above)
    roots = [r["root_gap"] for r in rows if r.get("root_gap") is not None]
    if roots:
        out["root_gap"] = {"median": statistics.median(roots), "max": max(roots)}
    out["median_ratio_cbc_over_fast"] = statistics.median(r["ratio"] for r in rows)
    out["disagreements"] = sum(r["agree"] is False for r in rows)
    return out


def _targets(instances: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets: 500 nodes optimal in <= 0.1 s median; 5,000 within 1% in <= 2 s.
    Over all graphs of that size (as the issue states them), and per graph family."""
    out: dict[str, Any] = {}
    for key, nodes, run, limit in (("500_nodes_optimal", 500, "fast", 0.1),
                                   ("5000_nodes_1pct_in_2s", 5000, "fast_2s", TARGET_LIMIT)):
        rows = [r for r in instances if r["nodes"] == nodes and run in r]
        if not rows:
            continue
        out[key] = _target(rows, run, limit)
        out[key]["by_family"] = {f: _target([r for r in rows if r["family"] == f], run, limit)
                                 for f in FAMILIES if any(r["family"] == f for r in rows)}
    return out


def _target(rows: list[dict[str, Any]], run: str, limit: float) -> dict[str, Any]:
    runs = [r[run] for r in rows]
    median = statistics.median(r["seconds"] for r in runs)
    done = sum(r["status"] == "optimal" for r in runs)
    gaps = [r["gap"] if r["gap"] is not None else float("inf") for r in runs]
    return {"target_median_s": limit, "median_s": round(median, 4), "within_gap": done, "of": len(runs),
            "median_gap": statistics.median(gaps), "max_gap": max(gaps),
            "met": median <= limit and done == len(runs)}


def _pct(gap: float | None) -> str:
    return "-" if gap is None else f"{100 * gap:.3g}%"


# ---------------------------------------------------------------- (c) warm re-placement

WARM_CHANGE = 0.1
WARM_SIZES = (100,)
WARM_SEEDS = tuple(range(12))


def changed_rates(graph: Graph, seed: int, change: float = WARM_CHANGE) -> Graph:
    """The same host with every edge rate multiplied by a factor from 1 - change .. 1 + change
    (limits and capacities kept: the host did not change, its traffic did)."""
    rng = np.random.default_rng(10_000 + seed)
    doc = graph.to_dict()
    for edge in doc["edges"]:
        edge["gbps"] = round(edge["gbps"] * float(rng.uniform(1 - change, 1 + change)), 6)
    return Graph.from_dict(doc)


def with_current(graph: Graph, location: dict[str, str]) -> Graph:
    """The graph with every free node's `current` set to `location` (no migration cost: the
    optimum does not change, only where the solve starts)."""
    doc = graph.to_dict()
    for node in doc["nodes"]:
        if node.get("pin") is None and node["kind"] == "nf":
            node["current"] = location[node["id"]]
    return Graph.from_dict(doc)


def warm(results_dir: pathlib.Path, sizes: tuple[int, ...] = WARM_SIZES,
         seeds: tuple[int, ...] = WARM_SEEDS) -> dict[str, Any]:
    rows = []
    for n in sizes:
        for seed in seeds:
            for tight in (True, False):
                before = realistic_graph(n, seed, tight)
                first = solve(before, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)
                after = changed_rates(before, seed)
                cold = solve(after, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)
                hot = (solve(with_current(after, first.location), "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)
                       if first.location else None)
                row = {"nodes": n, "snics": len(before.snics), "T": "tight" if tight else "loose", "seed": seed,
                       "cold": _row(cold), "warm": None if hot is None else _row(hot)}
                if hot is not None:
                    row["ratio_cold_over_warm"] = round(cold.seconds / max(hot.seconds, 1e-6), 3)
                    row["same_optimum"] = (cold.status == hot.status == "optimal"
                                           and abs(cold.objective - hot.objective)
                                           <= 2 * EXACT_GAP * abs(cold.objective) + 1e-6)
                rows.append(row)
                print(json.dumps(row), flush=True)
    paired = [r for r in rows if r["warm"] is not None]
    summary: dict[str, Any] = {}
    for key, of in (("all", paired), ("1_snic", [r for r in paired if r["snics"] == 1]),
                    ("2_snic", [r for r in paired if r["snics"] == 2])):
        if of:
            cold_s = statistics.median(r["cold"]["seconds"] for r in of)
            warm_s = statistics.median(r["warm"]["seconds"] for r in of)
            summary[key] = {"hosts": len(of), "cold_median_s": cold_s, "warm_median_s": warm_s,
                            "median_cold_over_warm": round(cold_s / max(warm_s, 1e-6), 3),
                            "same_optimum": sum(r["same_optimum"] for r in of)}
    result = {"benchmark": f"realistic hosts, every rate times 1 +- {WARM_CHANGE:g} (uniform), fast solver cold and "
                           f"warm (current = the optimum before the change), gap {EXACT_GAP}, limit {TIME_LIMIT:g} s",
              "summary": summary, "instances": rows}
    (results_dir / "solver_warm.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm", action="store_true", help="only (c), the warm re-placement measurement")
    parser.add_argument("--sizes", type=int, nargs="+", default=WARM_SIZES)
    parser.add_argument("--seeds", type=int, nargs="+", default=WARM_SEEDS)
    args = parser.parse_args()
    out = pathlib.Path(__file__).resolve().parent / "results"
    if args.warm:
        warm(out, tuple(args.sizes), tuple(args.seeds))
    else:
        print(json.dumps(main(out), indent=2))

"""A reference point for the solver's 500-node speed target: Gurobi on the same models.

Not part of `make bench` (Gurobi is commercial; pip's gurobipy carries a restricted license for
models of at most 2,000 variables and 2,000 rows, which the 500-node graphs fit and the larger ones
do not). It solves the benchmark's 500-node graphs (bench_solver: chain and random families, tight
and loose T, seeds 0-2) with the reference model (uno_solver.ilp.build, written as MPS) in Gurobi,
one thread, gap 1e-4, and with the fast solver in the same run, and writes
bench/results/solver_reference.json with both times and their medians.

    .venv/bin/pip install gurobipy==13.0.3
    .venv/bin/python -m bench.solver_reference

With --realistic it solves the realistic hosts of issue 23 instead (instances.realistic_graph: 1-2
sNICs, tenants' chains, shared NFs; 100 and 500 nodes, tight and loose T, seeds 0-11): Gurobi where
the model fits its license, the fast solver with 30 s and with the NF agent's 2 s limit, and (with
--highs) HiGHS on the same reference model, all in one run, one thread each. It writes
bench/results/solver_reference_realistic.json: per host the times, statuses and gaps, and per class
(nodes, sNICs) the medians, the ratio of the fast solver's median to Gurobi's, and how many hosts the
fast solver proves within 2 s.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import Any

from bench.bench_solver import (
    EXACT_GAP,
    FAMILIES,
    SEEDS,
    TARGET_LIMIT,
    TIME_LIMIT,
    WARM_SEEDS,
    WARM_SIZES,
    changed_rates,
    with_current,
)
from uno_solver import ilp, solve
from uno_solver.instances import realistic_graph
from uno_solver.problem import compile_graph

NODES = 500
RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "solver_reference.json"
REALISTIC = pathlib.Path(__file__).resolve().parent / "results" / "solver_reference_realistic.json"
WARM = pathlib.Path(__file__).resolve().parent / "results" / "solver_reference_warm.json"
REALISTIC_SIZES = (100, 500)
REALISTIC_SEEDS = tuple(range(12))
LICENSE = 2000   # pip's gurobipy license: at most this many variables and this many rows



def _environment() -> dict:
    return {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--realistic", action="store_true", help="the realistic hosts of issue 23")
    parser.add_argument("--highs", action="store_true", help="with --realistic: also HiGHS on the reference model")
    parser.add_argument("--warm", action="store_true", help="Gurobi and the fast solver, cold and warm, after a change "
                                                            "of rates")
    parser.add_argument("--sizes", type=int, nargs="+", default=REALISTIC_SIZES, help="with --realistic")
    parser.add_argument("--seeds", type=int, nargs="+", default=REALISTIC_SEEDS, help="with --realistic")
    args = parser.parse_args()
    try:
        import gurobipy
    except ImportError:
        print("solver_reference: gurobipy is not installed (.venv/bin/pip install gurobipy==13.0.3)",
              file=sys.stderr)
        return 2
    env = gurobipy.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    if args.warm:
        return warm(gurobipy, env)
    if args.realistic:
        return realistic(gurobipy, env, args.sizes, args.seeds, args.highs)
    rows = []
    with tempfile.TemporaryDirectory(prefix="solver-reference-") as tmp:
        for family, make in FAMILIES.items():
            for tight in (True, False):
                for seed in SEEDS:
                    graph = make(NODES, seed, tight)
                    mps = pathlib.Path(tmp) / f"{family}-{seed}-{tight}.mps"
                    ilp.build(compile_graph(graph))[0].writeMPS(str(mps))
                    model = gurobipy.read(str(mps), env)
                    model.Params.Threads, model.Params.MIPGap, model.Params.TimeLimit = 1, EXACT_GAP, TIME_LIMIT
                    start = time.perf_counter()
                    model.optimize()
                    gurobi_s = time.perf_counter() - start
                    fast = solve(graph, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)
                    optimal = model.Status == gurobipy.GRB.OPTIMAL
                    rows.append({"family": family, "T": "tight" if tight else "loose", "seed": seed,
                                 "gurobi_seconds": round(gurobi_s, 4), "gurobi_optimal": optimal,
                                 "gurobi_objective": model.ObjVal, "gurobi_nodes": int(model.NodeCount),
                                 "fast_seconds": round(fast.seconds, 4), "fast_status": fast.status,
                                 "fast_objective": fast.objective})
                    print(json.dumps(rows[-1]), flush=True)
    summary = {"gurobi_median_s": statistics.median(r["gurobi_seconds"] for r in rows),
               "fast_median_s": statistics.median(r["fast_seconds"] for r in rows)}
    for family in FAMILIES:
        of = [r for r in rows if r["family"] == family]
        summary[f"{family}_gurobi_median_s"] = statistics.median(r["gurobi_seconds"] for r in of)
        summary[f"{family}_fast_median_s"] = statistics.median(r["fast_seconds"] for r in of)
    RESULTS.write_text(json.dumps({
        "benchmark": f"Gurobi {'.'.join(map(str, gurobipy.gurobi.version()))} (pip, restricted license, 1 thread) "
                     f"and the fast solver on the {NODES}-node graphs of bench_solver, gap {EXACT_GAP}",
        "summary": summary, "instances": rows,
        "environment": _environment()}, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def _gurobi(gurobipy: Any, env: Any, graph: Any, tmp: str, start_at: Any = None) -> dict[str, Any]:
    """Gurobi (one thread, gap EXACT_GAP, TIME_LIMIT) on the reference model, or why it did not run; with
    `start_at` (a location per node) that placement is its MIP start, every variable set."""
    problem = compile_graph(graph)
    model = ilp.build(problem)[0]
    size = max(model.numVariables(), model.numConstraints())
    if size > LICENSE:
        return {"skipped": f"model of {size} variables or rows, over the license's {LICENSE}"}
    mps = pathlib.Path(tmp) / "model.mps"
    model.writeMPS(str(mps))
    grb = gurobipy.read(str(mps), env)
    grb.Params.Threads, grb.Params.MIPGap, grb.Params.TimeLimit = 1, EXACT_GAP, TIME_LIMIT
    if start_at is not None:
        _set_start(grb, problem, start_at)
    start = time.perf_counter()
    grb.optimize()
    seconds = time.perf_counter() - start
    found = grb.SolCount > 0
    return {"seconds": round(seconds, 4), "optimal": grb.Status == gurobipy.GRB.OPTIMAL,
            "objective": grb.ObjVal if found else None, "bound": grb.ObjBound, "nodes": int(grb.NodeCount)}


def _set_start(grb: Any, problem: Any, loc: Any) -> None:
    """The reference model's variables (ilp.build's names) at placement `loc` as Gurobi's MIP start."""
    values = {}
    for i, j in enumerate(loc):
        values[f"p_{i}"] = float(j == 0)
        for s in range(problem.k if problem.k > 1 else 0):
            values[f"q_{i}_{s}"] = float(j == s + 1)
    for e, (u, v) in enumerate(zip(problem.edge_u, problem.edge_v, strict=True)):
        for s in range(problem.k):
            values[f"d_{e}_{s}"] = float((loc[u] == s + 1) != (loc[v] == s + 1))
    grb.update()
    for var in grb.getVars():
        if var.VarName in values:
            var.Start = values[var.VarName]


def warm(gurobipy: Any, env: Any) -> int:
    """Gurobi and the fast solver, cold and warm, on bench_solver's warm re-placement hosts."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="solver-reference-") as tmp:
        for row, before in _hosts(WARM_SIZES, WARM_SEEDS):
            first = solve(before, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)
            if first.location is None:
                continue
            after = changed_rates(before, row["seed"])
            problem = compile_graph(after)
            start_at = [problem.locations.index(first.location[node]) for node in problem.node_ids]
            row.update(gurobi_cold=_gurobi(gurobipy, env, after, tmp),
                       gurobi_warm=_gurobi(gurobipy, env, after, tmp, start_at),
                       fast_cold=_run(solve(after, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT)),
                       fast_warm=_run(solve(with_current(after, first.location), "fast", gap=EXACT_GAP,
                                            time_limit=TIME_LIMIT)))
            rows.append(row)
            print(json.dumps(row), flush=True)
    summary: dict[str, Any] = {}
    for key, of in (("all", rows), ("1_snic", [r for r in rows if r["snics"] == 1]),
                    ("2_snic", [r for r in rows if r["snics"] == 2])):
        licensed = [r for r in of if "seconds" in r["gurobi_cold"] and "seconds" in r["gurobi_warm"]]
        if not licensed:
            continue
        med = {run: statistics.median(r[run]["seconds"] for r in licensed)
               for run in ("gurobi_cold", "gurobi_warm", "fast_cold", "fast_warm")}
        summary[key] = {"hosts": len(licensed), **{f"{run}_median_s": v for run, v in med.items()},
                        "gurobi_cold_over_warm": round(med["gurobi_cold"] / med["gurobi_warm"], 3),
                        "fast_cold_over_warm": round(med["fast_cold"] / med["fast_warm"], 3)}
    WARM.write_text(json.dumps({
        "benchmark": f"Gurobi {'.'.join(map(str, gurobipy.gurobi.version()))} (pip, restricted license, 1 thread) "
                     f"and the fast solver, cold and warm (the optimum before a change of every rate by up to 10% as "
                     f"MIP start, or as the nodes' current location), gap {EXACT_GAP}, limit {TIME_LIMIT:g} s",
        "summary": summary, "instances": rows, "environment": _environment()}, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def _hosts(sizes: Iterable[int], seeds: Iterable[int]) -> Iterator[tuple[dict[str, Any], Any]]:
    """Each realistic host of `sizes` nodes and `seeds`, tight and loose T: its result row so far, and its graph."""
    for n in sizes:
        for seed in seeds:
            for tight in (True, False):
                graph = realistic_graph(n, seed, tight)
                yield {"nodes": n, "snics": len(graph.snics), "T": "tight" if tight else "loose", "seed": seed}, graph


def _run(placement: Any) -> dict[str, Any]:
    return {"seconds": round(placement.seconds, 4), "status": placement.status, "objective": placement.objective,
            "gap": placement.gap}


def realistic(gurobipy: Any, env: Any, sizes: list[int], seeds: list[int], with_highs: bool) -> int:
    rows = []
    with tempfile.TemporaryDirectory(prefix="solver-reference-") as tmp:
        for row, graph in _hosts(sizes, seeds):
            row["gurobi"] = _gurobi(gurobipy, env, graph, tmp)
            row["fast"] = _run(solve(graph, "fast", gap=EXACT_GAP, time_limit=TIME_LIMIT))
            row["fast_2s"] = _run(solve(graph, "fast", gap=EXACT_GAP, time_limit=TARGET_LIMIT))
            if with_highs:
                row["highs"] = _run(solve(graph, "ilp", gap=EXACT_GAP, time_limit=TIME_LIMIT, backend="highs"))
            rows.append(row)
            print(json.dumps(row), flush=True)
    summary = {}
    for n in sizes:
        for k in (1, 2):
            of = [r for r in rows if r["nodes"] == n and r["snics"] == k]
            if of:
                summary[f"{n}_nodes_{k}_snic"] = _class(of)
        summary[f"{n}_nodes"] = _class([r for r in rows if r["nodes"] == n])
    REALISTIC.write_text(json.dumps({
        "benchmark": f"Gurobi {'.'.join(map(str, gurobipy.gurobi.version()))} (pip, restricted license, 1 thread), "
                     f"the fast solver (limits {TIME_LIMIT:g} s and {TARGET_LIMIT:g} s)"
                     f"{' and HiGHS on the reference model' if with_highs else ''} on realistic hosts, gap {EXACT_GAP}",
        "summary": summary, "instances": rows,
        "environment": _environment()}, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


def _class(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over one class; Gurobi's and the ratio only over the hosts its license took."""
    out: dict[str, Any] = {"hosts": len(rows)}
    for run in ("fast", "fast_2s", "highs"):
        runs = [r[run] for r in rows if run in r]
        if runs:
            out[f"{run}_median_s"] = statistics.median(x["seconds"] for x in runs)
            out[f"{run}_proven"] = sum(x["status"] == "optimal" for x in runs)
            gaps = [x["gap"] for x in runs if x["gap"] is not None]
            out[f"{run}_max_gap"] = max(gaps) if gaps else None
    licensed = [r for r in rows if "seconds" in r["gurobi"]]
    out["gurobi_hosts"] = len(licensed)
    if licensed:
        grb = statistics.median(r["gurobi"]["seconds"] for r in licensed)
        fast = statistics.median(r["fast"]["seconds"] for r in licensed)
        out["gurobi_median_s"] = grb
        out["gurobi_proven"] = sum(r["gurobi"]["optimal"] for r in licensed)
        out["fast_median_s_same_hosts"] = fast
        out["fast_over_gurobi"] = round(fast / grb, 3)
    return out


if __name__ == "__main__":
    sys.exit(main())

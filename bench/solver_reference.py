"""A reference point for the solver's 500-node speed target: Gurobi on the same models.

Not part of `make bench` (Gurobi is commercial; pip's gurobipy carries a restricted license for
models of at most 2,000 variables and 2,000 rows, which the 500-node graphs fit and the larger ones
do not). It solves the benchmark's 500-node graphs (bench_solver: chain and random families, tight
and loose T, seeds 0-2) with the reference model (uno_solver.ilp.build, written as MPS) in Gurobi,
one thread, gap 1e-4, and with the fast solver in the same run, and writes
bench/results/solver_reference.json with both times and their medians.

    .venv/bin/pip install gurobipy==13.0.3
    .venv/bin/python -m bench.solver_reference
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

from bench.bench_solver import EXACT_GAP, FAMILIES, SEEDS, TIME_LIMIT
from uno_solver import ilp, solve
from uno_solver.problem import compile_graph

NODES = 500
RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "solver_reference.json"


def main() -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    try:
        import gurobipy
    except ImportError:
        print("solver_reference: gurobipy is not installed (.venv/bin/pip install gurobipy==13.0.3)",
              file=sys.stderr)
        return 2
    env = gurobipy.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
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
        "environment": {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
                        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

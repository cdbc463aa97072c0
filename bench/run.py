"""Run UNO's benchmarks: every bench/bench_*.py module, or those named in BENCH.

Each module has `main(results_dir: pathlib.Path) -> dict`, writes its own
bench/results/<name>.json, and returns a short summary that is printed here.
Figures are ratios against a baseline measured in the same run (DESIGN.md). At the end, each
component's BENCHMARKS.md is generated again from bench/results (bench/tables.py).

    make bench                 # all of them
    BENCH=solver make bench    # only bench/bench_solver.py
"""
import importlib
import json
import os
import pathlib
import sys
import time

from bench import tables

HERE = pathlib.Path(__file__).resolve().parent


def _selected() -> list[str]:
    names = sorted(p.stem[len("bench_"):] for p in HERE.glob("bench_*.py"))
    wanted = [w for w in os.environ.get("BENCH", "").split(",") if w]
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        sys.exit(f"bench: unknown benchmark(s) {', '.join(unknown)}; have {', '.join(names)}")
    return wanted or names


def main() -> int:
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    failed = []
    for name in _selected():
        module = importlib.import_module(f"bench.bench_{name}")
        start = time.monotonic()
        print(f"== bench {name}", flush=True)
        try:
            summary = module.main(results)
        except Exception as exc:  # one broken benchmark must not hide the others
            print(f"bench {name}: FAILED: {exc}", file=sys.stderr)
            failed.append(name)
            continue
        print(json.dumps(summary, indent=2))
        print(f"== bench {name} took {time.monotonic() - start:.0f} s", flush=True)
    for path in tables.write_all(results):
        print(f"bench: wrote {path.relative_to(tables.REPO)}", flush=True)
    if failed:
        print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

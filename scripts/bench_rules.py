"""Benchmark (not a test): complete random games per second from the rules simulator.

Usage, from the repository root:

    .venv/bin/python scripts/bench_rules.py [--games N] [--players 4 8]

Runs on one core (a single process, a single thread) and prints the command it ran.
Target: >= 1,000 complete 4-player games per second.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per configuration")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from games.rules import simulate_game

    executable = os.path.relpath(sys.executable) if sys.executable else "python"
    print("$", shlex.join([executable, *sys.argv]))
    print(f"python {sys.version.split()[0]}, {args.games} games per run, best of {args.repeat}")
    for players in args.players:
        best = float("inf")
        for run in range(args.repeat):
            start = time.perf_counter()
            for seed in range(run * args.games, (run + 1) * args.games):
                simulate_game(seed, players, False)
            best = min(best, time.perf_counter() - start)
        print(f"{players} players: {args.games / best:,.0f} complete games/second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

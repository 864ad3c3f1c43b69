"""Benchmark (not a test): how strong the computer players are, and how fast they decide.

Usage, from the repository root:

    nice -n 19 .venv/bin/python scripts/bench_bots.py [--games N] [--players 3 4 6] [--json]

Plays seeded games on the rules engine alone (no database, no Django): for every pairing
of levels (Easy-Normal, Easy-Strong, Normal-Strong) at each table size, the seats alternate
between the two levels, and which level takes seat 0 alternates from game to game (at 3
players each level holds two seats in half the games). Game g uses seed g, so every
pairing sees the same deals.

Prints, per pairing and level: the mean score per game (a level's score in a game is the
mean of its seats') and the win rate (a game's victory split between the seats tied for
it, R10), each with a 95% confidence interval (normal approximation over the games), and
the time of each decision (bid or card) at the 50th and 99th percentiles. ``--json``
prints one JSON object per pairing instead.

Targets: Normal above Easy and Strong above Normal at every table size, with intervals
that do not overlap; at 4 players Strong's mean at least 50 points a game above Normal's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Z95 = 1.96


@dataclass
class LevelStats:
    scores: list[float] = field(default_factory=list)  # per game: the mean of its seats
    wins: list[float] = field(default_factory=list)  # per game: its share of the victory
    times: list[float] = field(default_factory=list)  # seconds per decision


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def run_pairing(players: int, a: Any, b: Any, games: int, first_seed: int) -> dict[str, LevelStats]:
    from games.rules.computer import decide_bid, decide_card, play_game

    stats = {a.value: LevelStats(), b.value: LevelStats()}
    clock = time.perf_counter

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(view: Any, level: Any, rng: random.Random) -> Any:
            start = clock()
            out = fn(view, level, rng)
            stats[level.value].times.append(clock() - start)
            return out

        return wrapper

    bid, card = timed(decide_bid), timed(decide_card)
    for g in range(games):
        seed = first_seed + g
        first, second = (a, b) if g % 2 == 0 else (b, a)
        levels = [first if seat % 2 == 0 else second for seat in range(players)]
        result = play_game(seed, levels, bid=bid, card=card)
        share = 1.0 / len(result.winners)
        for level in (a, b):
            seats = [s for s in range(players) if levels[s] is level]
            stats[level.value].scores.append(statistics.fmean(result.totals[s] for s in seats))
            stats[level.value].wins.append(share * sum(s in result.winners for s in seats))
    return stats


def summary(stats: LevelStats) -> dict[str, Any]:
    mean, low, high = interval(stats.scores)
    win, win_low, win_high = interval(stats.wins)
    return {
        "mean_score": round(mean, 1),
        "mean_score_ci95": [round(low, 1), round(high, 1)],
        "win_rate": round(win, 3),
        "win_rate_ci95": [round(win_low, 3), round(win_high, 3)],
        "decisions": len(stats.times),
        "decision_ms_p50": round(1000 * percentile(stats.times, 0.50), 3),
        "decision_ms_p99": round(1000 * percentile(stats.times, 0.99), 3),
        "decision_ms_max": round(1000 * max(stats.times), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing and size")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--json", action="store_true", help="one JSON object per pairing")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from games.rules.computer import Level

    pairings = [
        (Level.EASY, Level.NORMAL),
        (Level.EASY, Level.STRONG),
        (Level.NORMAL, Level.STRONG),
    ]
    if not args.json:
        executable = os.path.relpath(sys.executable) if sys.executable else "python"
        print("$", shlex.join([executable, *sys.argv]))
        print(
            f"python {platform.python_version()} on {platform.machine()}, "
            f"{args.games} games per pairing and table size, seeds {args.seed}.."
            f"{args.seed + args.games - 1}"
        )
        print(
            f"{'players':>7} {'pairing':<15} {'level':<7} {'mean score (95% CI)':>24} "
            f"{'win rate (95% CI)':>24} {'p50 ms':>7} {'p99 ms':>7}"
        )
    started = time.perf_counter()
    for players in args.players:
        for a, b in pairings:
            start = time.perf_counter()
            stats = run_pairing(players, a, b, args.games, args.seed)
            seconds = time.perf_counter() - start
            levels = {name: summary(s) for name, s in stats.items()}
            if args.json:
                print(
                    json.dumps(
                        {
                            "players": players,
                            "pairing": [a.value, b.value],
                            "games": args.games,
                            "first_seed": args.seed,
                            "seconds": round(seconds, 1),
                            "levels": levels,
                        }
                    ),
                    flush=True,
                )
                continue
            for name, s in levels.items():
                low, high = s["mean_score_ci95"]
                wlow, whigh = s["win_rate_ci95"]
                print(
                    f"{players:>7} {a.value + '-' + b.value:<15} {name:<7} "
                    f"{s['mean_score']:>7.1f} [{low:>6.1f}, {high:>6.1f}] "
                    f"{s['win_rate']:>8.3f} [{wlow:.3f}, {whigh:.3f}] "
                    f"{s['decision_ms_p50']:>7.2f} {s['decision_ms_p99']:>7.2f}",
                    flush=True,
                )
    if not args.json:
        print(f"{time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

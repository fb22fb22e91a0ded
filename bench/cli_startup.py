"""`labbot` start-up: each command's wall time as a user runs it, beside a baseline in one run.

Each command runs as a subprocess (`python -m bot ARGS`, what the `labbot` script runs) in a
scratch directory with its own SQLite database: once to warm up (the first run migrates the
database), then --runs times, commands and trees interleaved (the order of the trees alternates
from run to run). Printed: the median per command and its ratio to the baseline.

The baseline is an earlier labbot tree given with --baseline, run by the same interpreter and
packages, e.g. the commit before the CLI's lazy imports:

    mkdir /tmp/labbot-before && git archive 592cbab~1 | tar -x -C /tmp/labbot-before
    .venv/bin/python -m bench.cli_startup --baseline /tmp/labbot-before [--runs 5]

Without --baseline, each command is compared with importing the whole bot (bot.runtime.wiring: the
workflow, LangGraph, Nornir), which `templates`, `audit` and `policy check` paid before; that
import is a row of the table too (with --baseline: the whole bot's import, then and now).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHOLE_BOT = 'python -c "import bot.runtime.wiring"'
CASES: dict[str, tuple[str, ...]] = {
    "labbot --help": ("-m", "bot", "--help"),
    "labbot audit --help": ("-m", "bot", "audit", "--help"),
    "labbot policy check console:bob R1": ("-m", "bot", "policy", "check", "console:bob", "R1"),
    "labbot templates": ("-m", "bot", "templates"),
    "labbot templates ospf": ("-m", "bot", "templates", "ospf"),
    "labbot audit": ("-m", "bot", "audit"),
    "labbot audit verify": ("-m", "bot", "audit", "verify"),
    "labbot pending --user console:bob": ("-m", "bot", "pending", "--user", "console:bob"),
    WHOLE_BOT: ("-c", "import bot.runtime.wiring"),
}


@dataclass(frozen=True)
class Tree:
    """A labbot source tree and the scratch directory its commands run in."""

    name: str
    root: Path
    scratch: Path

    def run(self, argv: tuple[str, ...]) -> float:
        """Seconds from start to exit of `python ARGV` on this tree; a failure stops the bench."""
        env = {
            **os.environ,
            "PYTHONPATH": str(self.root),
            "LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{self.scratch / 'labbot.db'}",
            "LABBOT_DATA_DIR": str(self.scratch / "data"),
            "COLUMNS": "100",
        }
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, *argv], cwd=self.scratch, env=env, capture_output=True, timeout=120
        )
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            error = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
            raise SystemExit(f"{self.name}: python {' '.join(argv)} failed: {error}")
        return elapsed


def scratch_tree(name: str, root: Path, scratch: Path) -> Tree:
    place = scratch / name.replace(" ", "-")
    place.mkdir()
    return Tree(name, root, place)


def measure(trees: list[Tree], runs: int) -> dict[tuple[str, str], list[float]]:
    """Seconds per (tree, command), `runs` each after one warm-up run."""
    for tree in trees:
        for argv in CASES.values():
            tree.run(argv)
    timings: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run in range(runs):
        order = trees if run % 2 == 0 else trees[::-1]
        for label, argv in CASES.items():
            for tree in order:
                timings[tree.name, label].append(tree.run(argv))
    return timings


def report(timings: dict[tuple[str, str], list[float]], baseline: bool, runs: int) -> None:
    def ms(tree: str, label: str) -> float:
        return statistics.median(timings[tree, label]) * 1000

    against = "the baseline tree" if baseline else WHOLE_BOT
    print(f"median of {runs} runs per command, ms; ratio = this tree / {against}")
    print(f"{'command':36} {'this tree':>10}" + (f" {'baseline':>10}" if baseline else ""), "ratio")
    for label in CASES:
        now = ms("this tree", label)
        then = ms("baseline", label) if baseline else ms("this tree", WHOLE_BOT)
        shown = f" {then:10.0f}" if baseline else ""
        print(f"{label:36} {now:10.0f}{shown} {now / then:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command and tree")
    parser.add_argument("--baseline", type=Path, help="an earlier labbot tree to compare with")
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "bot" / "cli.py").is_file():
        parser.error(f"--baseline {args.baseline}: no labbot tree there (bot/cli/main.py)")
    with tempfile.TemporaryDirectory(prefix="labbot-cli-startup-") as scratch:
        trees = [scratch_tree("this tree", ROOT, Path(scratch))]
        if args.baseline is not None:
            trees.append(scratch_tree("baseline", args.baseline.resolve(), Path(scratch)))
        report(measure(trees, args.runs), args.baseline is not None, args.runs)


if __name__ == "__main__":
    main()

"""Benchmark: the audit with its typed text sealed, beside the same audit written in clear by a
checkout from before sealing, on SQLite.

    .venv/bin/python -m bench.audit_seal --against DIR [--changes 500] [--repeat 3]

DIR is a labbot checkout from before sealing (`git worktree add /tmp/before COMMIT`). Each tree
runs the same workload in a child process of its own (the tree first on the import path), on a
fresh SQLite file: per change five audit rows appended as the bot appends them (the request, a
Modify vote with feedback and the gate it settles, a read, an MCP agent call; each typed one
holding an SNMP community), then the whole listing read as `labbot audit` reads it
(`AuditStore.entries`) and the chain verified (`labbot audit verify`). Per tree it prints the
median seconds of each step over `--repeat` runs; the last line is the sealed/clear ratio of
each step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("append", "read", "verify")


async def workload(changes: int, database: Path) -> dict[str, float]:
    """{step: seconds} for `changes` changes' rows on a fresh database (the tree importing it
    decides whether they are sealed)."""
    from storage.audit_chain import AuditChain
    from storage.audit_records import Ballot
    from storage.audit_store import AuditStore
    from storage.db import make_engine, upgrade_engine

    chain: dict[str, Any] = {"key": b"bench-audit-key"}
    if "storage_keys" in AuditChain.__dataclass_fields__:  # this tree seals
        from storage.encryption import StorageKeys, new_key

        chain["storage_keys"] = StorageKeys([new_key()])
    engine = make_engine(f"sqlite+aiosqlite:///{database}")
    await upgrade_engine(engine)
    audit = AuditStore(engine, chain=AuditChain(**chain))
    where = {"platform": "slack", "channel": "C1"}
    started = time.perf_counter()
    for n in range(changes):
        change = f"chg-{n}"
        text = f"configure snmp community Bench-Comm-{n} RO on R1"
        await audit.record_change(
            change, thread_key=f"slack:C1:{n}", requester_id="U1", requester_name="alice",
            text=text, **where,
        )  # fmt: skip
        vote = Ballot(
            change_id=change, gate="params", interrupt_id=f"int-{n}", choice="modify",
            content_sha256="a" * 64, feedback=f"community=Fb-Comm-{n}", actor_id="U2",
            actor_name="bob", **where,
        )  # fmt: skip
        await audit.decide(vote)
        await audit.record_reads(
            actor_id="U3", actor_name="carol", sent={"R1": f"show run | include Read-{n}"},
            since=datetime.now(UTC), limit=changes, **where,
        )  # fmt: skip
        await audit.record_agent_call(
            agent_id="agent:claude", agent_name="claude", principal="U1", transport="stdio",
            tool="show", arguments={"command": f"show run | include Agent-{n}"}, outcome="answered",
        )  # fmt: skip
    appended = time.perf_counter()
    entries = await audit.entries()
    read = time.perf_counter()
    report = await audit.verify()
    verified = time.perf_counter()
    await engine.dispose()
    assert len(entries) == report.rows == 5 * changes and report.ok, report
    return {"append": appended - started, "read": read - appended, "verify": verified - read}


def run_tree(tree: Path, changes: int) -> dict[str, float]:
    """The workload in a child process importing labbot from `tree`."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(changes), folder],
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            check=True,
        )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="a labbot checkout from before sealing")
    parser.add_argument("--changes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        changes, folder = int(args.child[0]), Path(args.child[1])
        print(json.dumps(asyncio.run(workload(changes, folder / "labbot.db"))))
        return
    if args.against is None:
        parser.error("--against DIR: a checkout from before sealing, to compare with")
    trees = {"sealed": ROOT, "clear": args.against.resolve()}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(args.repeat):  # alternating, so neither tree always runs on a warm disk
        for name, tree in trees.items():
            runs[name].append(run_tree(tree, args.changes))
    medians = {
        name: {step: statistics.median(run[step] for run in done) for step in STEPS}
        for name, done in runs.items()
    }
    rows = 5 * args.changes
    for name, figures in medians.items():
        said = ", ".join(f"{step} {seconds:.3f} s" for step, seconds in figures.items())
        print(f"{name:>6}: {rows} rows: {said}")
    ratios = ", ".join(f"{s} {medians['sealed'][s] / medians['clear'][s]:.2f}" for s in STEPS)
    print(f"sealed/clear at {rows} rows: {ratios}")


if __name__ == "__main__":
    main()

"""Benchmark: reaction -> next thread message latency of labbot on a local Synapse, in a plain
and in an end-to-end encrypted room side by side.

    .venv/bin/python -m bench.matrix_latency [--decisions 50]

Starts a real Synapse on 127.0.0.1 (`.ci/synapse.sh` installs it), a simulated lab of three
routers, and labbot as `labbot serve` runs it (SQLite, library planner, labbot[e2e]). Two people
on E2EE clients share two rooms with the bot, one plain and one encrypted; changes alternate
between them. For each change a user asks in a new thread; another user reacts ✅ on the template
gate (-> the parameter preview) and ❌ on the preview (-> "cancelled"): two decisions per change,
nothing pushed. Each decision is timed from the reaction's send to the moment the user's client
sees (and has decrypted) the bot's next message in the thread ("client"), and by the
homeserver's timestamps of the two events ("server"). `--decisions` counts per room; one change
per room runs first untimed (the first Olm sessions and room keys are set up then).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.adapters.matrix.chat_user import ChatUser, Event
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    ask,
    labbot,
    labbot_settings,
    simulated_lab,
)
from tests.adapters.matrix.room_events import is_gate, shared_room, thread_message
from tests.fakes.synapse import Synapse, running_synapse

WAIT_SECONDS = 120.0


class Timings:
    """Milliseconds per decision, by the kind of decision and how it was measured."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, str], list[float]] = defaultdict(list)

    def add(self, room: str, kind: str, sent_at: float, reaction_ts: int, answer: Event) -> None:
        client_ms = (time.perf_counter() - sent_at) * 1000
        server_ms = float(answer["origin_server_ts"] - reaction_ts)
        for label in (kind, "all"):
            self.rows[(room, label, "client")].append(client_ms)
            self.rows[(room, label, "server")].append(server_ms)


async def decide(
    asker: ChatUser, decider: ChatUser, room: str, root: str, bot_id: str, gate: Event, key: str
) -> tuple[float, int, Event]:
    """React and wait for the bot's next message in the thread."""
    before = {e["event_id"] for e in asker.in_thread(room, root)}
    sent_at = time.perf_counter()
    reaction_id = await decider.react(room, gate["event_id"], key)
    answer = await asker.wait_for(
        thread_message(room, root, bot_id, lambda e: e["event_id"] not in before),
        within=WAIT_SECONDS,
    )
    reaction = await decider.wait_for(lambda r, e: e.get("event_id") == reaction_id)
    return sent_at, int(reaction["origin_server_ts"]), answer


async def one_change(
    alice: ChatUser, bob: ChatUser, room: tuple[str, str], bot_id: str, timings: Timings
) -> None:
    """One change in `room` (its kind, its id)."""
    kind, room_id = room
    thread, template = await ask(alice, room_id, bot_id, within=WAIT_SECONDS)
    root = thread.root
    sent_at, reaction_ts, params = await decide(alice, bob, room_id, root, bot_id, template, "✅")
    timings.add(kind, "✅ -> preview", sent_at, reaction_ts, params)
    assert is_gate(PARAMS_STEP)(params), params["content"]["body"][:200]
    sent_at, reaction_ts, outcome = await decide(alice, bob, room_id, root, bot_id, params, "❌")
    timings.add(kind, "❌ -> cancelled", sent_at, reaction_ts, outcome)


async def run(synapse: Synapse, decisions: int) -> Timings:
    bot = synapse.register("labbot", "bot-password")
    timings = Timings()
    with tempfile.TemporaryDirectory(prefix="labbot-bench-") as tmp:
        settings = labbot_settings(synapse, bot, Path(tmp))
        alice = ChatUser(synapse.url, synapse.register("alice"), Path(tmp) / "alice")
        bob = ChatUser(synapse.url, synapse.register("bob"), Path(tmp) / "bob")
        await alice.start()
        await bob.start()
        try:
            async with simulated_lab(settings) as (_, inventory), labbot(settings, inventory):
                rooms = [
                    (kind, await shared_room(alice, bot.user_id, bob, encrypted=kind == "e2ee"))
                    for kind in ("plain", "e2ee")
                ]
                for room in rooms:  # warm-up, not timed: first Olm sessions and room keys
                    await one_change(alice, bob, room, bot.user_id, Timings())
                for _ in range((decisions + 1) // 2):
                    for room in rooms:
                        await one_change(alice, bob, room, bot.user_id, timings)
        finally:
            await alice.close()
            await bob.close()
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def report(timings: Timings) -> None:
    total = len(timings.rows[("plain", "all", "client")])
    print(f"reaction -> next thread message, {total} decisions per room (ms)")
    print(f"{'room':7}{'decision':16}{'clock':8}{'n':>4}{'p50':>8}{'p95':>8}{'max':>8}{'mean':>8}")
    for (room, kind, clock), values in sorted(timings.rows.items()):
        row = [percentile(values, 0.5), percentile(values, 0.95), max(values)]
        row.append(statistics.fmean(values))
        cells = "".join(f"{v:8.0f}" for v in row)
        print(f"{room:7}{kind:16}{clock:8}{len(values):4}{cells}")
    for clock in ("client", "server"):
        plain = percentile(timings.rows[("plain", "all", clock)], 0.95)
        e2ee = percentile(timings.rows[("e2ee", "all", clock)], 0.95)
        print(f"p95 e2ee/plain ({clock}): {e2ee / plain:.2f} (goal <= 1.20)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=50)
    args = parser.parse_args()
    with running_synapse() as synapse:
        report(asyncio.run(run(synapse, args.decisions)))


if __name__ == "__main__":
    main()

"""Output under pressure: other threads' click → ack while 20 people read a 1.3 MB config at
once, and the memory a 10 MB LLM answer costs.

Reads: one bot per mode (SQLite, a recording gateway whose R1 answers `show running-config` with
1.3 MB, R2 with a small config). N Cancel clicks on open gates are handled one after another
(click → its answer posted, timed) while a peer on a thread of its own, as Slack's servers are,
sends an interaction every 10 ms and times the bot's loop acknowledging it (bolt acks on the
loop before any work): first with nothing else going on, then while waves of 20 concurrent
`show running-config on R1` from 20 people in 20 channels keep coming. Side by side: the reads
presented in the worker processes (the default) and in a thread of the bot's process
(LABBOT_RENDER_WORKERS=0). Printed per mode: ack p50/p99 quiet and loaded and the p99 ratio
(goal ≤ 1.2 with the workers), click → answer p50 quiet and loaded, reads answered, and what
they posted (inline and as files); each mode `--runs` times, the goal judged on the median
ratio (one run's p99 is its few slowest acks: on a shared host they move with its load).

LLM: a fresh bot process per size asks a free question the LLM stand-in (this process) answers
with 3 KB and with 10 MB of text (a plain answer), and asks for a change the stand-in answers
with a template whose description is 3 KB or 10 MB (streamed); printed: what was shown (cut with
a note past 4,000 characters) and the bot process's peak RSS growth over its start.

    .venv/bin/python -m bench.read_pressure [--clicks 40] [--readers 20] [--config-mb 1.3]
        [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from pydantic import SecretStr

from adapters.chat import Decision, Message, Request, ThreadRef
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from bot.views.read import posted_chars
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.workflow.gateways import RecordingGateway, ios_config

GOAL_RATIO = 1.2
ACK_EVERY_SECONDS = 0.01
READ = "show running-config on R1"
QUESTION = "why does R1 not learn R2's loopback?"


def big_config(megabytes: float) -> str:
    """An IOS running config of about `megabytes` MB (loopbacks with descriptions), holding
    secrets, so masking looks at every line."""
    lines, size, n = ["hostname R1", "enable secret 5 $1$mERr$9cTjUIEqNGurQiFU.ZeCi1"], 0, 0
    lines.append("snmp-server community lab-ro-community RO")
    while size < megabytes * 1_000_000:
        block = (
            f"interface Loopback{n}\n description customer circuit {n:06d} to the ring\n"
            f" ip address 10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256} 255.255.255.255\n!"
        )
        lines.append(block)
        size, n = size + len(block) + 1, n + 1
    return "\n".join(lines) + "\n"


def gateway(megabytes: float) -> RecordingGateway:
    small = ios_config("R2", ("GigabitEthernet0/0", "10.0.12.2/24"))
    return RecordingGateway(configs={"R1": big_config(megabytes), "R2": small})


def thread(channel: str, name: str) -> ThreadRef:
    return ThreadRef("console", channel, name)


async def reading(bot: Runtime, readers: int, stop: asyncio.Event) -> int:
    """Waves of `readers` concurrent reads of R1's config (each person in their own channel)
    until `stop`; how many reads were asked."""
    asked = 0
    while not stop.is_set():
        wave = [
            bot.service.handle(Request(thread(f"C{n}", f"r{asked + n}"), person(f"r{n}"), READ))
            for n in range(readers)
        ]
        await asyncio.gather(*wave)
        asked += readers
    return asked


async def timed_cancels(bot: Runtime, clicks: list[Decision]) -> list[float]:
    timings = []
    for decision in clicks:
        started = time.perf_counter()
        await bot.service.handle(decision)
        timings.append(time.perf_counter() - started)
    return timings


async def open_gates(bot: Runtime, chat: RecordingAdapter, count: int) -> list[Decision]:
    """`count` changes waiting at their first gate; a Cancel click for each."""
    clicks = []
    for n in range(count):
        where = thread("changes", f"t{n}")
        await bot.service.handle(Request(where, person("alice"), "apply ospf to R2"))
        mine = RecordingAdapter(posts=[p for p in chat.posts if p[1] == where])
        clicks.append(click(mine, "bob", "cancel", thread=where))
    return clicks


async def acknowledge() -> None:
    """What bolt does on the loop before anything else: answer the interaction."""


def acks_until(loop: asyncio.AbstractEventLoop, stop: threading.Event) -> list[float]:
    """From another thread, as a peer would: interactions every 10 ms, each timed to its ack."""
    timings = []
    while not stop.is_set():
        started = time.perf_counter()
        asyncio.run_coroutine_threadsafe(acknowledge(), loop).result()
        timings.append(time.perf_counter() - started)
        time.sleep(ACK_EVERY_SECONDS)
    return timings


async def phase(bot: Runtime, clicks: list[Decision]) -> tuple[list[float], list[float]]:
    """The clicks handled one after another while the peer's acks are timed: (acks, clicks)."""
    stop = threading.Event()
    acking = asyncio.ensure_future(asyncio.to_thread(acks_until, asyncio.get_running_loop(), stop))
    answered = await timed_cancels(bot, clicks)
    stop.set()
    return await acking, answered


def read_answers(chat: RecordingAdapter) -> list[Message]:
    return [m for _, t, m in chat.posts if t.channel.startswith("C") and m.blocks]


Timings = tuple[list[float], list[float]]  # (acks, clicks)


async def measure_reads(
    workers: int, clicks: int, readers: int, megabytes: float
) -> tuple[Timings, Timings, int, list[Message]]:
    with tempfile.TemporaryDirectory(prefix="read-pressure-") as tmp:
        settings = load_settings(
            data_dir=Path(tmp),
            database_url=f"sqlite+aiosqlite:///{tmp}/bench.db",
            render_workers=workers,
            render_cpu_seconds=30.0,  # the first call also starts the workers on a busy host
            max_open_per_user=10_000,
            max_open_per_channel=10_000,
            max_open=10_000,
            max_reads_per_minute=10_000,
        )
        chat = RecordingAdapter()
        async with open_runtime(settings, chat, gateway=gateway(megabytes)) as bot:
            pending = await open_gates(bot, chat, 2 * clicks)
            await bot.service.handle(Request(thread("warm", "w"), person("w"), "show run on R2"))
            quiet = await phase(bot, pending[:clicks])
            stop = asyncio.Event()
            load = asyncio.create_task(reading(bot, readers, stop))
            await asyncio.sleep(0.5)  # the first wave is being read and presented
            loaded = await phase(bot, pending[clicks:])
            stop.set()
            asked = await load
    return quiet, loaded, asked, read_answers(chat)


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 1 else values[0]


def ms(value: float) -> str:
    return f"{value * 1000:>8.1f}ms"


async def reads_table(clicks: int, readers: int, megabytes: float, runs: int) -> None:
    print(f"{clicks} Cancel clicks each; waves of {readers} `{READ}` ({megabytes} MB each)")
    print(
        f"{'presented in':<20}{'ack p50':>10}{'ack p99':>10}{'loaded p50':>11}{'loaded p99':>11}"
        f"{'p99 ratio':>10}{'click p50':>10}{'loaded':>10}{'reads':>6}{'inline MB':>10}"
        f"{'files MB':>9}"
    )
    for label, workers in (("worker processes", 2), ("a thread (workers 0)", 0)):
        ratios = []
        for _ in range(runs):
            quiet, loaded, asked, answers = await measure_reads(workers, clicks, readers, megabytes)
            files = sum(len(f.data) for m in answers for f in m.files) / 1e6
            inline = sum(posted_chars(m) for m in answers) / 1e6 - files
            ratios.append(p99(loaded[0]) / p99(quiet[0]))
            print(
                f"{label:<20}{ms(statistics.median(quiet[0]))}{ms(p99(quiet[0]))}"
                f" {ms(statistics.median(loaded[0]))} {ms(p99(loaded[0]))}{ratios[-1]:>10.2f}"
                f"{ms(statistics.median(quiet[1]))}{ms(statistics.median(loaded[1]))}"
                f"{asked:>6}{inline:>10.2f}{files:>9.1f}"
            )
        ratio = statistics.median(ratios)
        print(f"  median p99 ratio of {runs} runs: {ratio:.2f}")
        if workers:
            verdict = "met" if ratio <= GOAL_RATIO else "MISSED"
            print(f"  goal p99 ratio <= {GOAL_RATIO} with the worker processes: {verdict}")


# --- the LLM's 10 MB answer, in a bot process of its own ----------------------------------------


def memory_kb(field: str) -> int:
    """This process's `VmRSS` (now) or `VmHWM` (peak since the last reset), in KB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak() -> int:
    """Start the peak RSS again from now (Linux); the RSS now, in KB."""
    Path("/proc/self/clear_refs").write_text("5")
    return memory_kb("VmRSS")


ASKED = {  # what is asked, and the LLM stand-in's answer of `size` characters
    "diagnosis": (QUESTION, lambda size: text("R1 lacks the route. " + "y" * size)),
    "description": ("apply ntp to R1", lambda size: structured(ntp_template("NTP " + "y" * size))),
}


def ntp_template(description: str) -> dict[str, object]:
    return {
        "name": "ntp",
        "description": description,
        "templates": {"cisco_ios": "ntp server {{ server }}\n"},
        "params_schema": {"server": {"type": "ipv4"}},
        "example_params": {"server": "10.0.0.1"},
        "targets": ["R1"],
        "sections": ["ntp server *"],
    }


async def ask_once(base_url: str, kind: str) -> dict[str, int]:
    """Child process: one request of `kind`; what was shown and the peak RSS growth (KB)."""
    with tempfile.TemporaryDirectory(prefix="llm-pressure-") as tmp:
        settings = load_settings(
            data_dir=Path(tmp),
            database_url=f"sqlite+aiosqlite:///{tmp}/bench.db",
            openai_api_key=SecretStr("sk-standin"),
            openai_base_url=base_url,
        )
        chat = RecordingAdapter()
        async with open_runtime(settings, chat, gateway=gateway(0.01)) as bot:
            start_kb = reset_peak()
            started = time.perf_counter()
            await bot.service.handle(Request(thread("q", "q"), person("alice"), ASKED[kind][0]))
            seconds = time.perf_counter() - started
            peak_kb = memory_kb("VmHWM")
    shown = max((m.text + "".join(b.text for b in m.blocks) for m in chat.messages()), key=len)
    return {
        "shown": len(shown),
        "cut": int("characters more]" in shown),
        "rss_growth_kb": peak_kb - start_kb,
        "ms": int(seconds * 1000),
    }


def llm_table() -> None:
    print("\nThe LLM stand-in answers with a long text (a bot process each)")
    print(
        f"{'text':<12}{'answer':>10}{'shown':>9}{'cut':>5}{'answer ms':>11}{'peak RSS growth':>17}"
    )
    for kind, (_, answer) in ASKED.items():
        for size in (3_000, 10_000_000):
            with OpenAIStandIn() as llm:
                llm.script(answer(size))
                child = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "bench.read_pressure",
                        "--llm-child",
                        llm.base_url,
                        kind,
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
            found = json.loads(child.stdout.strip().splitlines()[-1])
            print(
                f"{kind:<12}{size / 1e6:>8.2f}MB{found['shown']:>9,}"
                f"{'yes' if found['cut'] else 'no':>5}{found['ms']:>11,}"
                f"{found['rss_growth_kb'] / 1024:>15.1f}MB"
            )


async def main(clicks: int, readers: int, megabytes: float, runs: int) -> None:
    await reads_table(clicks, readers, megabytes, runs)
    llm_table()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=40)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--config-mb", type=float, default=1.3)
    parser.add_argument("--runs", type=int, default=3, help="runs per mode (median ratio)")
    parser.add_argument("--llm-child", nargs=2, default=(), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.llm_child:
        with contextlib.redirect_stdout(sys.stderr):
            found = asyncio.run(ask_once(*args.llm_child))
        print(json.dumps(found))
    else:
        asyncio.run(main(args.clicks, args.readers, args.config_mb, args.runs))

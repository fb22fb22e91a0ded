"""Click → ack while a template bomb renders: rendering in the bot's process vs the worker pool.

Each mode runs one bot (SQLite, a recording gateway, the LLM stand-in proposing templates):
first N gates are opened, then N Cancel clicks are timed (click → its answer posted), once with
nothing else going on and once while other threads keep asking for a template bomb (the
issue's `[[1]*K]*K` printed). Side by side: LABBOT_RENDER_WORKERS=0 (render in the bot's
process) and the default pool.

    .venv/bin/python -m bench.render_isolation [--clicks 30] [--size 4000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.chat import Request, ThreadRef
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.workflow.gateways import two_router_lab

OK_TEMPLATE: dict[str, Any] = {
    "name": "ntp",
    "description": "NTP server",
    "templates": {"cisco_ios": "ntp server {{ server }}\n"},
    "params_schema": {"server": {"type": "ipv4"}},
    "example_params": {"server": "10.0.0.1"},
    "targets": ["R1"],
    "sections": ["ntp server *"],
}


def bomb(size: int) -> dict[str, Any]:
    source = f"{{% set a=[1]*{size} %}}{{% set b=[a]*{size} %}}{{{{ b }}}}"
    return {**OK_TEMPLATE, "templates": {"cisco_ios": source}, "example_params": {}}


def thread(name: str) -> ThreadRef:
    return ThreadRef("console", "bench", name)


async def keep_bombing(bot: Runtime, stop: asyncio.Event) -> int:
    sent = 0
    while not stop.is_set():
        sent += 1
        await bot.service.handle(Request(thread(f"bomb{sent}"), person("mallory"), "x on R1"))
    return sent


async def timed_cancels(
    bot: Runtime, chat: RecordingAdapter, first: int, count: int
) -> list[float]:
    timings = []
    for index in range(first, first + count):
        decision = click_of(chat, thread(f"t{index}"))
        started = time.perf_counter()
        await bot.service.handle(decision)
        timings.append(time.perf_counter() - started)
    return timings


def click_of(chat: RecordingAdapter, where: ThreadRef) -> Any:
    mine = RecordingAdapter(posts=[p for p in chat.posts if p[1] == where])
    return click(mine, "bob", "cancel", thread=where)


async def measure(workers: int, clicks: int, size: int) -> tuple[list[float], list[float], int]:
    with OpenAIStandIn() as llm, tempfile.TemporaryDirectory(prefix="safety-bench-") as tmp:
        llm.script(*[structured(OK_TEMPLATE)] * (2 * clicks), *[structured(bomb(size))] * 500)
        settings = load_settings(
            data_dir=Path(tmp),
            database_url=f"sqlite+aiosqlite:///{tmp}/bench.db",
            openai_api_key=SecretStr("sk-standin"),
            openai_base_url=llm.base_url,
            plan_attempts=1,
            render_workers=workers,
            max_open_per_user=10_000,
            max_open_per_channel=10_000,
        )
        chat = RecordingAdapter()
        async with open_runtime(settings, chat, gateway=two_router_lab()) as bot:
            for index in range(2 * clicks):
                await bot.service.handle(Request(thread(f"t{index}"), person("alice"), "ntp on R1"))
            quiet = await timed_cancels(bot, chat, 0, clicks)
            stop = asyncio.Event()
            bombing = asyncio.create_task(keep_bombing(bot, stop))
            await asyncio.sleep(0.5)
            loaded = await timed_cancels(bot, chat, clicks, clicks)
            stop.set()
            with contextlib.suppress(Exception):
                sent = await bombing
    return quiet, loaded, sent


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 1 else values[0]


async def main(clicks: int, size: int) -> None:
    print(f"{clicks} Cancel clicks each; bomb [[1]*{size}]*{size} printed, asked again and again")
    print(f"{'rendering':<22}{'p99 quiet':>12}{'p99 bombed':>12}{'ratio':>8}{'bombs':>7}")
    for label, workers in (("in the bot's process", 0), ("worker pool (2)", 2)):
        quiet, loaded, sent = await measure(workers, clicks, size)
        ratio = p99(loaded) / p99(quiet)
        print(
            f"{label:<22}{p99(quiet) * 1000:>10.1f}ms{p99(loaded) * 1000:>10.1f}ms"
            f"{ratio:>8.1f}{sent:>7}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=30)
    parser.add_argument("--size", type=int, default=4000)
    args = parser.parse_args()
    asyncio.run(main(args.clicks, args.size))

"""Limits: template bombs fail that template in one line, in a capped worker process, while
other threads keep being served; Nornir runs never start a thread per device; a 10,000-host
inventory asked for `R*` is refused by max-targets before anything is read."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from pydantic import SecretStr

from adapters.chat import Request
from base.errors import ConfigError, TemplateError
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import make_gateway, open_runtime
from bot.settings import load_settings
from labsim import demo_topology
from labsim.lab import Lab
from storage.config_backups import ConfigBackupStore
from storage.db import make_engine, upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.locks import DeviceLockStore
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.security.replay import attacked_bot, attacked_lab, configs, thread
from tests.security.tally import attempt
from workflow.devices.inventories.static import StaticInventory
from workflow.devices.runner import Credentials, Timeouts, build_nornir
from workflow.devices.session_limits import DEFAULT_SESSIONS, MOST_SESSIONS
from workflow.model import Device
from workflow.templates.render_pool import RenderPool
from workflow.templates.rendering import MAX_OUTPUT_CHARS, render

NESTED = "{% set a=[1]*19999 %}{% set b=[a]*19999 %}"
BOMBS = [
    NESTED + "{{ b }}",  # the issue's: froze the bot for 31 s at 1.3 GB
    NESTED + "{% set c=[b]*19999 %}{{ c }}",  # one level deeper ran out of memory
    NESTED + "{{ b|join(',') }}",
    NESTED + "{{ b|string|length }}",
    NESTED + "{{ b|pprint }}",
    NESTED + "{{ b|tojson }}",
    NESTED + "{{ b|sum(start=[])|length }}",
    NESTED + "{{ b|map('sum')|sum }}",
    "{{ ('a'*19999)|replace('a', 'a'*19999) }}",
    "{% for i in range(5000) %}{% for j in range(5000) %}x{% endfor %}{% endfor %}",
    "{{ 'x'|center(1000000000) }}",
    "{{ range(1000000000)|list|length }}",
    "{{ (2**4096) }}",
    "{{ '%0*d' % (100000000, 1) }}",
    "{% set s = 'x'*19999 %}{{ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s }}",
]
OK_TEMPLATE = {
    "name": "ntp",
    "description": "NTP server",
    "templates": {"cisco_ios": "ntp server {{ server }}\n"},
    "params_schema": {"server": {"type": "ipv4"}},
    "example_params": {"server": "10.0.0.1"},
    "targets": ["R1"],
    "sections": ["ntp server *"],
}
# a valid proposal (its parameter used, its example valid) whose rendering is the bomb
BOMB_PROPOSAL = {
    **OK_TEMPLATE,
    "templates": {"cisco_ios": BOMBS[0] + "\nntp server {{ server }}\n"},
}


@pytest.fixture(scope="module")
def pool() -> AsyncIterator[RenderPool]:
    renderer = RenderPool(workers=2, cpu_seconds=1.0, memory_mb=256)
    yield renderer  # type: ignore[misc]
    renderer.close()


@pytest.mark.parametrize("bomb", BOMBS, ids=[b[-30:] for b in BOMBS])
async def test_a_bomb_fails_its_template_in_one_line_and_the_worker_serves_the_next(
    pool: RenderPool, bomb: str
) -> None:
    """Refused in one line within the caps, or harmless (done within them, output capped)."""
    started = time.monotonic()
    try:
        lines = await pool.run(render, bomb, {})
        message = ""
    except TemplateError as refused:
        lines, message = [], str(refused)
    elapsed = time.monotonic() - started
    within = elapsed < 2 * pool.cpu_seconds + 6 and "\n" not in message and len(message) < 200
    attempt("limits: template bombs", within)
    assert within, (elapsed, message)
    assert message or sum(map(len, lines)) <= MAX_OUTPUT_CHARS
    assert await pool.run(render, "hostname {{ n }}", {"n": "R1"}) == ["hostname R1"]


async def test_workers_ignore_ctrl_c_and_a_worker_killed_between_calls_is_replaced() -> None:
    renderer = RenderPool(workers=1, cpu_seconds=1.0, memory_mb=256)
    try:
        assert await renderer.run(render, "hostname {{ n }}", {"n": "R1"}) == ["hostname R1"]
        [worker] = list(renderer._pool._processes.values())  # type: ignore[attr-defined]
        os.kill(worker.pid, signal.SIGINT)  # the terminal's Ctrl-C reaches every worker
        assert await renderer.run(render, "hostname {{ n }}", {"n": "R2"}) == ["hostname R2"]
        assert worker.is_alive()
        worker.kill()
        worker.join()
        for _ in range(200):  # until the executor has seen it die (its own thread notices)
            if renderer._pool._broken:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.05)
        assert await renderer.run(render, "hostname {{ n }}", {"n": "R3"}) == ["hostname R3"]
    finally:
        renderer.close()


async def test_a_call_waiting_for_a_worker_is_not_refused_for_its_wait() -> None:
    """The wall-time cap (twice the CPU cap + 5 s) counts a render's own time, not its wait for
    a free worker: 60 labs previewing at once (bench.many_labs) queued renders past it, their
    pool was killed and the changes ended "something went wrong"."""
    renderer = RenderPool(workers=1, cpu_seconds=0.5, memory_mb=256)
    try:
        first = renderer._pool
        naps = [renderer.run(time.sleep, 0.5) for _ in range(14)]  # 7 s queued, the cap 6 s
        assert await asyncio.gather(*naps) == [None] * 14
        assert renderer._pool is first  # never replaced: no render overran
    finally:
        renderer.close()


async def test_a_render_killed_with_another_renders_pool_is_rendered_again() -> None:
    """One render overruns the wall-time cap (stuck, as in one C call) and its pool is killed:
    the other render running in that pool at the time is not refused for it ("the worker died
    (over … MB?)") but sent again to the new pool."""
    renderer = RenderPool(workers=2, cpu_seconds=2.0, memory_mb=256)  # the wall cap: 9 s
    try:
        first = renderer._pool
        stuck = asyncio.ensure_future(renderer.run(time.sleep, 60))
        await asyncio.sleep(6.0)
        # still running when the stuck one's pool is killed (at 9 s); sent again, it has the
        # whole cap again for a worker's start and its 4.5 s
        other = asyncio.ensure_future(renderer.run(time.sleep, 4.5))
        with pytest.raises(TemplateError, match="did not finish within"):
            await stuck
        assert renderer._pool is not first
        assert await other is None  # done, not refused
    finally:
        renderer.close()


async def test_a_bomb_from_the_llm_ends_that_change_while_other_threads_are_served(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        llm.script(structured(OK_TEMPLATE), structured(BOMB_PROPOSAL))
        settings = {
            "openai_api_key": SecretStr("sk-standin"),
            "openai_base_url": llm.base_url,
            "plan_attempts": 1,
            "render_cpu_seconds": 2.0,
            "render_memory_mb": 256,
        }
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
            before = configs(lab)
            await bot.service.handle(Request(thread("ok"), person("alice"), "ntp on R1"))
            waiting = click(chat, "bob", "cancel", thread=thread("ok"))
            bombing = asyncio.create_task(
                bot.service.handle(Request(thread("bomb"), person("mallory"), "x on R1"))
            )
            await asyncio.sleep(0.5)  # the bomb is rendering now
            started = time.monotonic()
            await bot.service.handle(waiting)
            served_in = time.monotonic() - started
            await bombing
            bomb_said = [t for m in chat.posts if m[1] == thread("bomb") for t in [m[2].text]]
            ended = any("LABBOT_RENDER" in text for text in bomb_said)
            attempt("limits: template bombs", ended and configs(lab) == before)
            assert served_in < 1.5, served_in  # the event loop was never blocked by the bomb
            assert any("cancelled" in t for t in chat.texts()), chat.texts()
            assert ended, bomb_said
            assert configs(lab) == before


def test_nornir_runs_are_bounded_whatever_the_device_count() -> None:
    devices = [Device(f"R{i}", "cisco_ios", "127.0.0.1", 1) for i in range(10_000)]
    login, timeouts = Credentials(None, None, None), Timeouts(1, 1)
    workers = [
        build_nornir(devices, login, timeouts, *sessions).runner.num_workers  # type: ignore[attr-defined]
        for sessions in [(), (MOST_SESSIONS,)]
    ]
    with pytest.raises(ValueError, match="device sessions must be 1 to 256, not 257"):
        build_nornir(devices, login, timeouts, MOST_SESSIONS + 1)
    attempt("limits: thread fan-out", workers == [32, 256])
    assert workers == [DEFAULT_SESSIONS, MOST_SESSIONS] == [32, 256]


@pytest.mark.parametrize("value", ["0", "257", "-1", "many", "32.5"])
def test_the_sessions_setting_outside_its_bounds_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    monkeypatch.setenv("LABBOT_DEVICE_SESSIONS", value)
    with pytest.raises(ConfigError, match="LABBOT_DEVICE_SESSIONS"):
        load_settings(data_dir=tmp_path)


async def test_the_sessions_setting_bounds_the_sessions_a_device_run_opens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """LABBOT_DEVICE_SESSIONS=2: a read of five simulated devices has two open at a time."""
    monkeypatch.setenv("LABBOT_DEVICE_SESSIONS", "2")
    settings = demo_settings(load_settings(data_dir=tmp_path))
    engine = make_engine(settings.database_url)
    await upgrade_engine(engine)
    stores = ConfigBackupStore(engine, StorageKeys([new_key()])), DeviceLockStore(engine)
    async with Lab.start(demo_topology(5, switch=False), ssh=False, **DEMO_CREDENTIALS) as lab:
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
        gateway = make_gateway(settings, inventory, *stores)
        reads = {device.name: "show ip interface brief" for device in lab.devices}
        response = await gateway.read(reads)
        peak = lab.peak_sessions  # counted by the lab itself (polling missed short overlaps)
    await engine.dispose()
    attempt("limits: thread fan-out", peak == 2 and response["successful"] == 5)
    assert response["successful"] == 5, response
    assert peak == 2  # never more, and the two used at once


async def test_r_star_over_10000_hosts_is_refused_without_reading_or_threads(
    tmp_path: Path,
) -> None:
    hosts = {
        f"R{i}": {"hostname": "127.0.0.1", "port": 9, "platform": "cisco_ios"}
        for i in range(1, 10_001)
    }
    (tmp_path / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    chat = RecordingAdapter()
    settings = demo_settings(load_settings(data_dir=tmp_path))
    peak = threading.active_count()
    async with open_runtime(
        settings, chat, inventory=StaticInventory(tmp_path / "hosts.yaml")
    ) as big:
        started = time.monotonic()
        asking = asyncio.create_task(
            big.service.handle(Request(thread("big"), person("mallory"), "apply ospf to R*"))
        )
        while not asking.done():
            peak = max(peak, threading.active_count())
            await asyncio.sleep(0.05)
        elapsed = time.monotonic() - started
    said = "\n".join(chat.texts())
    refused = "10000 devices, more than any change may (LABBOT_MAX_TARGETS_CONFIRMED=500)" in said
    attempt("limits: thread fan-out", refused and peak < 64)
    assert refused, said
    assert peak < 64 and elapsed < 60, (peak, elapsed)


async def test_a_10_mb_llm_description_is_cut_with_a_note_and_the_change_proceeds(
    tmp_path: Path,
) -> None:
    """10 MB in one long word (a few tokens to the stand-in, so it sends them all, as a server
    ignoring max_tokens would), streamed in pieces: the wire keeps 16,000 characters of it,
    so the answer fits its first budget; the gate shows 4,000 and the note of all the rest, the
    stored description too, and Approve leads to the parameters gate."""
    chat = RecordingAdapter()
    huge = {**OK_TEMPLATE, "description": "NTP server " + "y" * 10_000_000}
    with OpenAIStandIn() as llm:
        llm.script(structured(huge), structured({"common": {"server": "10.0.0.1"}}))
        settings = {"openai_api_key": SecretStr("sk-standin"), "openai_base_url": llm.base_url}
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
            await bot.service.handle(Request(thread("big"), person("alice"), "ntp on R1"))
            gate = await bot.workflow.pending_gate(thread("big").key)
            gate_message, asked = chat.last_gate()[1], len(llm.requests)
            await bot.service.handle(click(chat, "bob", "approve", thread=thread("big")))
            after = await bot.workflow.pending_gate(thread("big").key)
    assert gate is not None, chat.texts()
    stored = gate.payload["description"]
    shown = gate_message.text + "".join(b.text for b in gate_message.blocks)
    cut = f" … [cut: {len(huge['description']) - 4_000:,} characters more]"
    proceeds = after is not None and after.gate == "params"
    attempt("limits: LLM text", stored.endswith(cut) and cut in shown and proceeds)
    assert stored.startswith("NTP server yyy") and stored.endswith(cut) and len(stored) < 4_100
    assert cut in shown and len(shown) < 20_000
    assert asked == 1  # the wire kept the answer within its first budget
    assert proceeds, chat.texts()[-3:]

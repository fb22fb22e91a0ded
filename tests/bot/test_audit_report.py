"""`labbot audit report`: a real change (simulated lab, real graph and SQLite) written as one
self-contained HTML file, opened in headless Chromium to check what is on screen."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from adapters.chat import Actor, Request, ThreadRef
from bot.cli.audit import write_report
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import Settings, load_settings
from bot.topology.shapes import COLOURS
from labsim import Lab, demo_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.pictures import colours_in, rgb
from tests.support.browser import show

HOSTILE = (
    "<img src=x onerror=\"document.body.innerHTML='PWNED'\"><script>document.title='PWNED'</script>"
)


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


async def record_changes(settings: Settings) -> str:
    """alice's change to R1,R2 (her own approval refused, bob approves both gates, a hostile
    person's late click refused) and that person's request. Returns alice's change id."""
    chat = RecordingAdapter()
    async with open_runtime(settings, chat) as bot:
        await bot.service.handle(ask("apply ospf to R1,R2", "alice"))
        await bot.service.handle(click(chat, "alice"))  # four-eyes: refused, recorded
        await bot.service.handle(click(chat, "bob"))
        await bot.service.handle(click(chat, "bob"))
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        mallory = Actor("console:mallory", HOSTILE)
        late = replace(click(chat, "bob"), actor=mallory)  # after the push: refused, recorded
        await bot.service.handle(late)
        other = ThreadRef("console", "lab-channel", "t2")
        await bot.service.handle(Request(other, mallory, f"configure {HOSTILE} on R9"))
    assert change is not None
    return change.change_id


async def test_report_shows_the_change_its_decisions_diff_and_chain(
    tmp_path: Path, lab: Lab
) -> None:
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    settings = demo_settings(load_settings(data_dir=tmp_path, inventory=inventory))
    change_id = await record_changes(settings)
    page = tmp_path / "report.html"
    report = await write_report(settings, page, None, None)
    html = page.read_text()
    shown = show(page, "audit-report")

    assert report.chain.ok and len(report.changes) == 2
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", html)  # no external asset
    assert "@media print" in html and "<svg" in html
    dom = shown.dom
    assert "PWNED" not in dom.split("<body", 1)[0]  # the title was not rewritten by a script
    assert "<script" not in dom and "<img src=x" not in dom  # hostile text stayed text
    images = re.findall(r"<img [^>]*>", dom)  # the only images: the lab's picture, inline
    assert len(images) == 1 and 'src="data:image/png;base64,' in images[0]
    assert "&lt;script&gt;document.title='PWNED'" in dom  # and is shown as such
    assert f'<section class="change" id="{change_id}">' in dom
    assert 'Chain verification: <span class="ok">intact</span>' in dom
    assert report.chain.head and report.chain.head in dom
    section = dom.split(f'id="{change_id}"', 1)[1].split("</section>", 1)[0]
    assert "four-eyes" in section  # alice's refused approval, with the reason
    assert "&lt;img src=x onerror=" in section  # the late click's refusal, its name as text
    assert section.count("<td>approve</td>") == 2 and "bob (console:bob)" in section
    assert '<span class="add">+ router ospf 1</span>' in section  # the diff shown at the gate
    assert '<span class="add">  + router-id 10.255.0.1</span>' in section
    assert re.search(r"<td>R1</td><td>success</td>", section)
    assert "ospf" in section and re.search(r"<code>[0-9a-f]{64}</code>", section)  # template
    assert "Changes and decisions per day" in dom and "Changes and decisions per person" in dom
    assert shown.screenshot.stat().st_size > 20_000  # a page with content, not a blank one
    assert f"{change_id}: the lab as the change left it" in section  # its picture
    # on screen: the pushed routers' colour (the simulator runs no post-check: not checked)
    assert rgb(COLOURS["pushed"]) in colours_in(shown.screenshot.read_bytes())


async def test_audit_report_in_chat_attaches_the_page(tmp_path: Path, lab: Lab) -> None:
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    settings = demo_settings(load_settings(data_dir=tmp_path, inventory=inventory))
    change_id = await record_changes(settings)
    chat = RecordingAdapter()
    async with open_runtime(settings, chat) as bot:
        await bot.service.handle(ask(f"audit report change={change_id}", "carol"))
    said = chat.messages()[-1]
    (page,) = said.files
    assert "1 change(s)" in said.text and "intact" in said.text
    assert page.name.endswith(".html") and page.mime == "text/html"
    assert f'id="{change_id}"' in page.data.decode()

"""`labbot audit report -o FILE [--lab NAME]` under a labs file: with --lab only that lab's
changes, the page saying which lab; without it each change names its lab (a timeline column and
a line in its section). Two simulated labs with the same router names, a change pushed on each."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from labsim import Lab
from tests.bot.labs.lab_cli import CHANGE, audit, console, labbot, settings


def timeline(page: str) -> list[list[str]]:
    """The timeline table's rows, as the cells' text (the header row first)."""
    table = page.split("<h2>Timeline</h2>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    return [
        [unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", r)]
        for r in rows
    ]


async def report(tmp_path: Path, env: dict[str, str], name: str, *args: str) -> tuple[str, str]:
    status, out, err = await labbot("audit", "report", "-o", name, *args, cwd=tmp_path, env=env)
    assert status == 0, out + err
    return out, (tmp_path / name).read_text()


async def test_report_of_one_lab_and_of_all_labs(tmp_path: Path, labs: dict[str, Lab]) -> None:
    env = settings(tmp_path)
    await console(tmp_path, env, "red", CHANGE)
    await console(tmp_path, env, "blue", CHANGE)
    made = {r["lab"]: r["change_id"] for r in await audit(tmp_path, env) if r["kind"] == "change"}

    said, page = await report(tmp_path, env, "blue.html", "--lab", "blue")
    assert said.startswith("wrote blue.html: 1 change(s) of lab blue from "), said
    assert "<p>lab blue: 1 change(s). Generated " in page
    rows = timeline(page)
    assert rows[0] == ["requested", "change", "by", "request", "outcome"]
    assert [row[1] for row in rows[1:]] == [made["blue"]]
    assert made["red"] not in page
    assert "Made on lab blue." in page

    said, page = await report(tmp_path, env, "all.html")
    assert said.startswith("wrote all.html: 2 change(s) from "), said
    rows = timeline(page)
    assert rows[0] == ["requested", "change", "lab", "by", "request", "outcome"]
    assert sorted((row[1], row[2]) for row in rows[1:]) == sorted(
        (change, lab) for lab, change in made.items()
    )
    for lab, change in made.items():
        section = page.split(f'<section class="change" id="{change}">', 1)[1]
        assert section.split("</section>", 1)[0].count("Made on lab ") == 1
        assert f"Made on lab {lab}." in section.split("</section>", 1)[0]

    status, out, err = await labbot(
        "audit", "report", "-o", "green.html", "--lab", "green", cwd=tmp_path, env=env
    )
    assert status == 2 and not out, out + err
    assert err.strip().splitlines() == ["labbot: no lab named 'green' (the labs: red, blue)"]
    assert not (tmp_path / "green.html").exists()


async def test_chat_audit_in_a_lab_shows_that_lab_only(
    tmp_path: Path, labs: dict[str, Lab]
) -> None:
    """`audit` and `audit report` typed in a lab's chat list that lab's changes, never another's
    (a change id of the other lab reads as none)."""
    env = settings(tmp_path)
    await console(tmp_path, env, "red", CHANGE)
    await console(tmp_path, env, "blue", CHANGE)
    made = {r["lab"]: r["change_id"] for r in await audit(tmp_path, env) if r["kind"] == "change"}

    said = await console(tmp_path, env, "red", f"audit\naudit change={made['blue']}\n")
    assert made["red"] in said
    assert made["blue"] not in said.replace(f"audit change={made['blue']}", "")
    assert "Audit: 0 record(s)" in said, said

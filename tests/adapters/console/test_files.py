"""What the console cannot show as a chat does: pictures and pages (it writes each attached
file and prints its path), and edits (an updated message is printed again, boxed)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from adapters.chat import FileAttachment, Message, ThreadRef
from adapters.console.adapter import ConsoleAdapter
from bot.views.presenter import present_progress
from workflow.model import PushProgress


async def test_an_attached_file_is_written_and_its_path_printed(tmp_path: Path) -> None:
    out = io.StringIO()
    adapter = ConsoleAdapter(Console(file=out, width=200), files_dir=tmp_path / "files")
    picture = FileAttachment("topology.png", b"\x89PNG...", "image/png", image=True, alt="Lab")
    await adapter.post(ThreadRef("console", "terminal", "t1"), Message("R1", files=(picture,)))
    (written,) = (tmp_path / "files").iterdir()
    assert written.read_bytes() == b"\x89PNG..." and written.name.endswith("topology.png")
    assert str(written) in out.getvalue()


async def test_a_new_session_numbers_its_files_after_the_last_ones_and_overwrites_none(
    tmp_path: Path,
) -> None:
    thread = ThreadRef("console", "terminal", "t1")
    folder = tmp_path / "files"
    for picture in (b"first session", b"second session"):
        adapter = ConsoleAdapter(Console(file=io.StringIO(), width=200), files_dir=folder)
        shown = Message("R1", files=(FileAttachment("topology.svg", picture, "image/svg+xml"),))
        await adapter.post(thread, shown)
    written = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert written == {"1-topology.svg": b"first session", "2-topology.svg": b"second session"}


async def test_progress_rows_stay_inside_a_box_as_they_change() -> None:
    """A terminal cannot edit the progress it printed: each change is printed again, in a
    box under its header, never as bare lines after the box."""
    out = io.StringIO()
    adapter = ConsoleAdapter(Console(file=out, width=100, no_color=True))
    thread = ThreadRef("console", "terminal", "t1")
    pushing = {name: PushProgress(name, "started", "", 0, 2) for name in ("R1", "R2")}
    posted = await adapter.post(thread, present_progress("chg-1", pushing))
    pushing["R1"] = PushProgress("R1", "done", "", 1, 2)
    await adapter.update(thread, posted, present_progress("chg-1", pushing))
    rows = [line for line in out.getvalue().splitlines() if "⏳" in line or "✓" in line]
    assert len(rows) == 3  # R1 and R2 started, then R1 done: nothing printed twice
    assert all(row.startswith("│") and row.rstrip().endswith("│") for row in rows), rows
    assert out.getvalue().count("1/2 device(s) finished") == 1  # the update says how far

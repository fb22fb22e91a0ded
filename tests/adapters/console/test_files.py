"""The console shows no pictures or pages: it writes each attached file and prints its path."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from adapters.chat import FileAttachment, Message, ThreadRef
from adapters.console.adapter import ConsoleAdapter


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

"""Console sessions as a person runs them (`labbot demo` in a terminal, or with a script):
Ctrl-C clears the line at once and twice quits; a second run resumes what the first left open
with new thread ids, and an open change is decided (cancelled, approved) by its id."""

from __future__ import annotations

import os
import pty
import pwd
import re
import select
import sys
import time
from pathlib import Path

import pytest

from bot import messages
from tests.bot.test_cli import ROOT, labbot

CHANGE_ID = re.compile(r"chg-[0-9a-f]{8}")


class Terminal:
    """`labbot ARGS` on a pseudo-terminal: what a person types, and what the screen shows."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: labbot on the terminal's other end
            os.chdir(cwd)
            env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "NO_COLOR": "1"}
            os.execve(sys.executable, [sys.executable, "-m", "bot", *args], env)
        self.screen = ""
        self.cursor = 0  # where the last text waited for ends

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait_for(self, text: str, seconds: float = 60) -> float:
        """Seconds until `text` is on the screen after the last text waited for."""
        start = time.monotonic()
        while text not in self.screen[self.cursor :]:
            left = seconds - (time.monotonic() - start)
            assert left > 0, f"{text!r} not shown; the screen ends: {self.screen[-600:]!r}"
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                self.screen += os.read(self.fd, 65536).decode(errors="replace")
        self.cursor = self.screen.index(text, self.cursor) + len(text)
        return time.monotonic() - start

    def exit_status(self, seconds: float = 10) -> int | None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            try:
                self.screen += os.read(self.fd, 65536).decode(errors="replace")
            except OSError:
                time.sleep(0.1)
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        return None


def test_ctrl_c_clears_the_line_or_the_modify_question_at_once_and_twice_quits(
    tmp_path: Path,
) -> None:
    terminal = Terminal(tmp_path, "demo", "--devices", "1")
    terminal.wait_for("alice> ")
    terminal.type("configure ospf on")  # half typed, no Enter
    terminal.type("\x03")
    assert terminal.wait_for("(input cleared — Ctrl-C again quits)", 5) < 2
    terminal.type("help\n")  # read alone: the half-typed words are gone
    terminal.wait_for("I change your lab safely")
    assert "I did not recognise" not in terminal.screen
    terminal.type("apply ospf to R1\nas bob\n")
    terminal.wait_for("[1] Approve")
    terminal.wait_for("(type the number; 2 asks what")  # where people type, it says so
    terminal.type("2\n")
    terminal.wait_for("What should change? ")
    terminal.type("area")
    terminal.type("\x03")  # no Modify after all: the gate stays as it was
    terminal.wait_for("(input cleared — Ctrl-C again quits)", 5)
    terminal.type("status\n")
    terminal.wait_for("[1] Approve")  # the same gate shown again, still open
    terminal.wait_for("bob> ")
    terminal.type("\x03")
    terminal.wait_for("Ctrl-C again quits", 5)
    terminal.type("\x03")
    assert terminal.exit_status() == 0


def test_ctrl_c_while_a_step_runs_says_so_and_the_second_stops_it(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path, "demo", "--devices", "3")
    terminal.wait_for("alice> ")
    terminal.type("configure ospf on all routers\n")
    terminal.wait_for("Working on it")  # the lab is being read: the step takes a while
    terminal.type("\x03")
    terminal.wait_for("(still working on the last step — Ctrl-C again quits", 5)
    terminal.type("\x03")
    assert terminal.exit_status() == 0
    assert "Step 1 of 2" not in terminal.screen  # stopped before its gate


def test_a_second_demo_run_resumes_with_new_threads_and_decides_the_old_change_by_id(
    tmp_path: Path,
) -> None:
    (tmp_path / "first.txt").write_text("configure ospf on all routers\n")
    first = labbot("demo", "--script", "first.txt", "--data-dir", "data", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert messages.SESSION_CLEAN in first.stdout
    (left_open,) = set(CHANGE_ID.findall(first.stdout))
    leaving = " ".join(first.stdout.split()).rsplit("Leaving ", 1)[-1]  # its last words
    assert leaving.startswith(
        f"1 change(s) waiting for a decision ({left_open} at the template gate): they stay "
        "pending, nothing is pushed."
    )
    second_script = f"configure ospf on all routers\nas bob\ncancel {left_open}\n"
    (tmp_path / "second.txt").write_text(second_script)
    second = labbot("demo", "--script", "second.txt", "--data-dir", "data", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    said = " ".join(second.stdout.split())  # one line, however the terminal wrapped it
    resumed = f"wait for a decision ({left_open} at the template gate); decide one by its id"
    assert f"Resuming: 1 change(s) from earlier sessions {resumed}" in said
    assert "already waiting for a decision" not in said  # a new thread, not the old one
    new = [c for c in dict.fromkeys(CHANGE_ID.findall(second.stdout)) if c != left_open]
    assert len(new) == 1 and f"Step 1 of 2 — template for change {new[0]}" in said
    assert f"Change {left_open} cancelled" in said and "bob cancelled the change" in said
    (tmp_path / "third.txt").write_text(f"as bob\napprove {new[0]}\n")
    third = labbot("demo", "--script", "third.txt", "--data-dir", "data", cwd=tmp_path)
    said = " ".join(third.stdout.split())
    assert f"({new[0]} at the template gate)" in said and left_open not in said
    assert (
        "✅ Approved by bob" in said
        and f"Step 2 of 2 — parameters and preview for change {new[0]}" in said
    )
    assert said.endswith(f"resumes them (approve {new[0]} or cancel {new[0]}; pending lists them).")
    assert f"Leaving 1 change(s) waiting for a decision ({new[0]} at the params gate)" in said


def test_console_without_a_lab_says_how_to_name_one(tmp_path: Path) -> None:
    console = labbot("console", cwd=tmp_path, stdin="help\n")
    assert console.returncode == 2
    assert console.stderr.strip().startswith("labbot: no devices configured: set GNS3_URL")
    assert len(console.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # no database made for nothing


def test_ctrl_c_leaves_the_render_workers_running_for_the_next_change(tmp_path: Path) -> None:
    """Ctrl-C reaches the terminal's whole process group, the render workers too: they ignore
    it, and the next change renders as the first did (no worker traceback, no broken pool)."""
    terminal = Terminal(tmp_path, "demo", "--devices", "1")
    terminal.wait_for("alice> ")
    terminal.type("apply ntp to R1 servers=10.0.0.1\n")  # rendered in the workers
    terminal.wait_for("[1] Approve")
    terminal.type("cancel\n")
    terminal.wait_for("nothing was pushed")  # the prompt shows at once; the step ends later
    terminal.wait_for("alice> ")
    terminal.type("\x03")  # at rest: it clears the input
    terminal.wait_for("(input cleared — Ctrl-C again quits)", 10)
    terminal.type("apply ntp to R1 servers=10.0.0.2\n")
    terminal.wait_for("[1] Approve")
    terminal.type("quit\n")
    assert terminal.exit_status() == 0
    for broken in ("Traceback", "KeyboardInterrupt", "BrokenProcessPool", "went wrong"):
        assert broken not in terminal.screen, terminal.screen[-2000:]


def test_a_seat_that_looks_like_the_os_user_is_refused_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = pwd.getpwuid(os.getuid()).pw_name
    cyrillic = str.maketrans("oaepcxyi", "оаерсхуі")  # each letter's Cyrillic look-alike
    look_alike = me.translate(cyrillic)
    if look_alike == me:
        pytest.skip(f"{me!r} has no letter with a Cyrillic look-alike")
    monkeypatch.setenv("LABBOT_CONSOLE_USERS", f"bob,{look_alike}")
    terminal = Terminal(tmp_path, "console")
    terminal.wait_for(f"LABBOT_CONSOLE_USERS: 'console:{me}' and 'console:{look_alike}' look")
    assert terminal.exit_status() not in (0, None)
    assert f"{me}> " not in terminal.screen  # no session: nobody approves under the look-alike

"""`labbot console` reading a chat written beforehand, as a person runs it (a subprocess on a
simulated lab): from a file on stdin, from a pipe, or with `--script FILE`, each line echoed as
if typed; a device's failure is its one line, never a traceback."""

from __future__ import annotations

import asyncio
import os
import pwd
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.bot.test_check import LABBOT, SETTINGS_PREFIXES

ME = pwd.getpwuid(os.getuid()).pw_name
OSPF_REFUSED_ON_R2 = """\
configure ospf on all routers
as bob
1
1
quit
"""


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    """Two simulated routers, R2 refusing `router ospf`; the console's settings."""
    refused = {"R2": ["^router ospf"]}
    async with Lab.start(
        demo_topology(2, switch=False), reject=refused, **DEMO_CREDENTIALS
    ) as running:
        running.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        yield {
            "LABBOT_INVENTORY": "hosts.yaml",
            "LABBOT_DATA_DIR": str(tmp_path / "data"),
            "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
            "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
            "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
            "LABBOT_CONSOLE_USERS": "bob",
        }


async def console(
    cwd: Path, env: dict[str, str], *args: str, stdin: IO[bytes] | bytes | None = None
) -> tuple[int, str]:
    """`labbot console ARGS`, stdin a file (an open one), a pipe (bytes) or nothing; its exit
    status and all it printed (stdout and stderr)."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    piped = isinstance(stdin, bytes)
    process = await asyncio.create_subprocess_exec(
        LABBOT,
        "console",
        *args,
        cwd=cwd,
        env={**kept, "COLUMNS": "200", **env},
        stdin=asyncio.subprocess.PIPE if piped else (stdin or asyncio.subprocess.DEVNULL),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(stdin if piped else None), 180)
    return process.returncode or 0, out.decode()


async def test_a_chat_from_a_file_on_stdin_is_echoed_and_a_refused_line_is_one_line(
    tmp_path: Path, lab: dict[str, str]
) -> None:
    chat = tmp_path / "chat.txt"
    chat.write_text(OSPF_REFUSED_ON_R2)
    with chat.open("rb") as typed:
        status, said = await console(tmp_path, lab, stdin=typed)
    assert status == 0, said
    assert f"{ME}> configure ospf on all routers" in said and "bob> 1" in said
    assert "✅ Approved by bob" in said
    shown = " ".join(said.split())  # one line, however the console wrapped it
    assert (
        "✗ R2 the device rejected a line: Invalid input detected at command: router ospf 1" in shown
    )
    assert "Traceback" not in said and "failed with traceback" not in said
    assert "PermissionError" not in said


@pytest.mark.parametrize("way", ["pipe", "--script"])
async def test_a_chat_from_a_pipe_or_a_script_is_read_line_by_line(
    tmp_path: Path, lab: dict[str, str], way: str
) -> None:
    chat = "show version on R1 raw\nquit\nhelp\n"  # nothing after `quit` is read
    if way == "pipe":
        status, said = await console(tmp_path, lab, stdin=chat.encode())
    else:
        (tmp_path / "chat.txt").write_text(chat)
        status, said = await console(tmp_path, lab, "--script", "chat.txt")
    assert status == 0, said
    assert f"{ME}> show version on R1 raw" in said
    assert "R1 uptime is 1 hour, 0 minutes" in said
    assert f"{ME}> help" not in said and "I change your lab safely" not in said

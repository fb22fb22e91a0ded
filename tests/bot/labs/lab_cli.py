"""`labbot` on the command line, as a user runs it (a subprocess), over two simulated labs with
the same router names (tests.support.two_labs): the labs file, the settings and the runner the
many-labs CLI tests share."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from bot.cli.demo import DEMO_CREDENTIALS

ROOT = Path(__file__).resolve().parents[3]
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")
LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    slack: C0RED
    approvers: ["console:bob"]
  blue:
    inventory: blue/hosts.yaml
    slack: C0BLUE
    approvers: ["console:bob"]
"""
CHANGE = "configure ospf on all routers\nas bob\n1\n1\n"


async def labbot(
    *args: str, cwd: Path, env: dict[str, str], stdin: str = ""
) -> tuple[int, str, str]:
    """`labbot ARGS` with only `env` set (the test services' names removed), `stdin` piped in;
    the labs keep running on this test's loop meanwhile."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=cwd,
        env={**kept, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 180)
    return process.returncode or 0, out.decode(), err.decode()


def settings(tmp_path: Path, *, labs_file: str | None = LABS, **more: str) -> dict[str, str]:
    """The settings of a lab team: LABBOT_LABS naming `labs_file` (else one lab, red's)."""
    env = {
        "LABBOT_DATA_DIR": str(tmp_path / "data"),
        "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
        "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
        "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
        "LABBOT_CONSOLE_USERS": "bob",
        **more,
    }
    if labs_file is not None:
        (tmp_path / "labs.yaml").write_text(labs_file)
        env["LABBOT_LABS"] = "labs.yaml"
    else:
        env["LABBOT_INVENTORY"] = "red/hosts.yaml"
    return env


async def audit(tmp_path: Path, env: dict[str, str], *args: str) -> list[dict[str, str]]:
    status, out, err = await labbot("audit", "--format", "json", *args, cwd=tmp_path, env=env)
    assert status == 0, out + err
    rows: list[dict[str, str]] = json.loads(out)
    return rows


async def console(tmp_path: Path, env: dict[str, str], lab: str, chat: str) -> str:
    """`labbot console --lab LAB` reading `chat`; what it printed (it must end well)."""
    script = tmp_path / f"chat-{lab}.txt"
    script.write_text(chat)
    status, out, err = await labbot(
        "console", "--lab", lab, "--script", str(script), cwd=tmp_path, env=env
    )
    assert status == 0, out + err
    return out

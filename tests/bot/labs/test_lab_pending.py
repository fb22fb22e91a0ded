"""Who decides what, per lab, on the command line: `labbot pending` lists each lab's open steps
judged by that lab's own people (a student of red sees nothing to decide in blue, an instructor
of both sees both), grouped under the lab's name; `--lab` only that lab. A refusal in a lab that
names no approvers names the setting its rule came from. Two simulated labs, one router names."""

from __future__ import annotations

import re
from pathlib import Path

from labsim import Lab
from tests.bot.labs.lab_cli import audit, console, labbot, settings

LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    approvers: ["console:ann", "console:teach"]
  blue:
    inventory: blue/hosts.yaml
    approvers: ["console:ben", "console:teach"]
"""
ASK = "configure ospf on all routers\n"


async def pending(tmp_path: Path, env: dict[str, str], *args: str) -> str:
    status, out, err = await labbot("pending", *args, cwd=tmp_path, env=env)
    assert status == 0, out + err
    return out


def groups(out: str) -> dict[str, str]:
    """The lines under each `lab NAME:` heading, by lab."""
    parts = re.split(r"^lab (\S+):$", out, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


async def test_pending_per_lab_by_each_labs_people(tmp_path: Path, labs: dict[str, Lab]) -> None:
    env = settings(tmp_path, labs_file=LABS)
    await console(tmp_path, env, "red", ASK)
    await console(tmp_path, env, "blue", ASK)
    made = {r["lab"]: r["change_id"] for r in await audit(tmp_path, env) if r["kind"] == "change"}

    ann = groups(await pending(tmp_path, env, "--user", "console:ann"))
    assert list(ann) == ["red"], ann
    assert "Waiting for you: 1 step(s) you may approve." in ann["red"]
    assert f"• {made['red']} — template step" in ann["red"]
    assert made["blue"] not in ann["red"]

    teach = groups(await pending(tmp_path, env, "--user", "console:teach"))
    assert list(teach) == ["red", "blue"], teach
    for lab, other in (("red", "blue"), ("blue", "red")):
        assert f"• {made[lab]} — template step" in teach[lab]
        assert made[other] not in teach[lab]

    ben_in_red = groups(await pending(tmp_path, env, "--user", "console:ben", "--lab", "red"))
    assert list(ben_in_red) == ["red"]
    assert "Waiting for you: 0 step(s) you may approve." in ben_in_red["red"]
    assert made["red"] not in ben_in_red["red"]

    stranger = await pending(tmp_path, env, "--user", "console:zed")
    assert stranger.strip() == "nothing waits for console:zed in any lab (LABBOT_LABS: red, blue)"

    status, out, err = await labbot("pending", "--lab", "green", cwd=tmp_path, env=env)
    assert status == 2 and not out, out + err
    assert err.strip().splitlines() == ["labbot: no lab named 'green' (the labs: red, blue)"]


async def test_a_refusal_names_where_the_labs_approvers_come_from(
    tmp_path: Path, labs: dict[str, Lab]
) -> None:
    labs_file = """\
labs:
  red:
    inventory: red/hosts.yaml
  blue:
    inventory: blue/hosts.yaml
    approvers: ["console:carol"]
"""
    env = settings(tmp_path, labs_file=labs_file, LABBOT_APPROVERS="console:carol")
    bob_approves = ASK + "as bob\n1\n"
    red = flat(await console(tmp_path, env, "red", bob_approves))
    assert (
        "Refused: you are not an approver in terminal (LABBOT_APPROVERS: lab red names no "
        "approvers of its own in LABBOT_LABS)." in red
    ), red
    blue = flat(await console(tmp_path, env, "blue", bob_approves))
    assert (
        "Refused: you are not an approver in terminal (the approvers of lab blue in LABBOT_LABS)."
        in blue
    ), blue


def flat(out: str) -> str:
    """The console's words without its boxes and line breaks."""
    return " ".join(out.replace("│", " ").split())

"""In a lab's chat another lab's change is as unknown: `pending` does not list it (not even to
the person who asked for it), and deciding or rolling it back by its id is answered as for an id
no change has — never naming the lab it was made on. Two simulated labs with the same router
names, through `labbot console --lab` (the chat of that lab)."""

from __future__ import annotations

from pathlib import Path

from labsim import Lab
from tests.bot.labs.lab_cli import audit, console, settings


async def test_another_labs_change_is_unknown_in_a_labs_chat(
    tmp_path: Path, labs: dict[str, Lab]
) -> None:
    env = settings(tmp_path)
    await console(tmp_path, env, "blue", "configure ospf on all routers\n")  # left waiting
    (blue,) = [r["change_id"] for r in await audit(tmp_path, env) if r["kind"] == "change"]

    typed = [f"approve {blue}", f"rollback {blue}", f"cancel {blue}"]
    said = await console(tmp_path, env, "red", "pending\n" + "\n".join(typed) + "\n")
    for line in typed:
        said = said.replace(line, "")
    assert said.count(f"No change {blue} is on record.") == len(typed), said
    said = said.replace(f"No change {blue} is on record.", "")
    assert blue not in said, said  # pending in red lists blue's change nowhere
    assert "blue" not in said, said  # nor is the other lab named

    said = await console(tmp_path, env, "blue", "pending\n")
    assert blue in said  # in its own lab it waits, for the one who asked

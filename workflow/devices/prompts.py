"""A session's privileged prompt: found once (`enable` first if need be), kept while it holds.

Every read of labbot ends at the session's privileged prompt. netmiko would look for the prompt
again before every command, and check the mode, sleeping and sending an Enter each time (~0.1 s a
read); here it is found once per session and kept on the session until a push may have changed
it, and kept across a push whose output ends at that very prompt (the device kept its name and
mode), so the read that verifies the push sends no Enter to look again.
"""

from __future__ import annotations

import re
from typing import Any

from netmiko.exceptions import ReadTimeout

from workflow.devices.cli_errors import has_enable
from workflow.devices.sessions import last_line

PROMPT_ATTRIBUTE = "_labbot_prompt"  # the whole prompt, set on a netmiko session once found
PROMPT_TRIES = 3
PROMPT_CHARS = r"[#>\]$%]"  # how every platform's prompt ends (IOS, EOS, FRR, Junos, VRP)
PROMPT_END = rf"{PROMPT_CHARS}\s*$"
PROMPT_SECONDS = 2.0
ENABLE_HINT = " — is LABBOT_DEVICE_SECRET (or the inventory's secret) right?"


class CliRefused(Exception):
    """The device answered a read (or `enable`) with a CLI error instead of output."""

    def __init__(self, command: str, reply: str, hint: str = "") -> None:
        super().__init__(f"`{command}` was refused: {reply}{hint}")


class EnableRefused(CliRefused):
    """`enable` did not bring the session to its privileged prompt."""


def privileged_prompt(connection: Any) -> str:
    """The pattern ending a read: the session's privileged prompt at the end of the output."""
    prompt: str | None = getattr(connection, PROMPT_ATTRIBUTE, None)
    if prompt is None:
        # Junos, VRP, a Linux shell: no `enable` (netmiko's would enter config mode, or sudo)
        platform = str(getattr(connection, "device_type", ""))
        if has_enable(platform) and not connection.check_enable_mode():
            try:
                connection.enable()
            # netmiko: still not privileged after `enable` and the secret (IOS), or no `#`
            # prompt ever came back (EOS answers a wrong secret so)
            except (ValueError, ReadTimeout):
                shown = connection.find_prompt().strip()
                raise EnableRefused("enable", f"still at `{shown}`", ENABLE_HINT) from None
        prompt = whole_prompt(connection)
        setattr(connection, PROMPT_ATTRIBUTE, prompt)
    return rf"{re.escape(prompt)}\s*$"


def prompt_after_push(connection: Any, output: str) -> None:
    """Keep the prompt when the push's output ends at it; else (a push may rename the device or
    leave it in another mode) forget it, so the next read finds it again."""
    if last_line(output) != getattr(connection, PROMPT_ATTRIBUTE, None):
        forget_prompt(connection)


def forget_prompt(connection: Any) -> None:
    if hasattr(connection, PROMPT_ATTRIBUTE):
        delattr(connection, PROMPT_ATTRIBUTE)


def whole_prompt(connection: Any) -> str:
    """The session's prompt: an Enter, and the last line read up to a prompt's end (`#`, `>`,
    `]`, `$`, `%`). netmiko's `find_prompt` sleeps 0.25 s and clears the channel twice (at
    least 0.45 s a call, twice per device in a push); this returns when the prompt shows.
    A prompt that ends otherwise, or comes later than PROMPT_SECONDS, is found netmiko's way."""
    try:
        connection.write_channel(connection.RETURN)
        output = str(connection.read_until_pattern(PROMPT_END, read_timeout=PROMPT_SECONDS))
    except ReadTimeout:
        return _found_prompt(connection)
    return last_line(output)


def _found_prompt(connection: Any) -> str:
    """netmiko's `find_prompt`, asked again (a few times) while what it read ends in a letter or
    digit: a prompt ends in `#`, `>`, `]`, `$` or the like, so that was only part of it (a slow
    console), and every read would then wait for a prompt that never comes."""
    prompt = ""
    for _ in range(PROMPT_TRIES):
        prompt = str(connection.find_prompt()).strip()
        if prompt and not prompt[-1].isalnum():
            break
    return prompt

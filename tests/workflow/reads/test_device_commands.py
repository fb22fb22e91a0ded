"""Which messages are device commands (refused before anything is planned or sent) and which are
changes asked for in words, reads or questions (left to their own paths)."""

from __future__ import annotations

import pytest

from workflow.reads.device_commands import device_command

_EXPORTS = "exports the configuration or files to another host, or fetches them"
COMMANDS = {
    "do reload": "reloads the device",
    "rel": "reloads the device",
    "reload in 5": "reloads the device",
    "copy run tftp://10.0.0.9/r1.cfg": _EXPORTS,
    "copy running-config scp:": _EXPORTS,
    "copy tftp://10.0.0.9/x.cfg running-config": _EXPORTS,
    "write erase": "erases the startup configuration",
    "delete /force flash:vlan.dat": "deletes files from the device",
    "configure replace flash:old.cfg": "replaces the whole running configuration",
    "request system reboot": "reboots, halts, zeroizes or upgrades the device",
    "reset saved-configuration": "erases the saved configuration",
    "do show running-config": "runs an exec command from configuration mode",
    "write memory": "saves the running configuration",
    "wr": "saves the running configuration",
    "copy run start": "saves the running configuration",
    "conf t": "enters configuration mode",
    "do clear ip bgp *": "resets sessions, tables or counters",
    "clear counters": "resets sessions, tables or counters",
}
NOT_COMMANDS = [
    "configure ospf area 0 on all routers",
    "configure rip on R1",
    "enable ospf on R1",
    "install a static route to 10.9.9.0/24 on R1",
    "copy the ospf settings of R1 to R2",
    "configure the loopbacks on all routers",
    "clear the ospf settings on R1",
    "write a banner on R1",
    "why does R1 not learn R3's loopback?",
    "show run on R1",
    "",
]


@pytest.mark.parametrize(("text", "why"), COMMANDS.items())
def test_device_commands_say_what_they_would_do(text: str, why: str) -> None:
    assert device_command(text) == why


@pytest.mark.parametrize("text", NOT_COMMANDS)
def test_changes_in_words_reads_and_questions_are_not_device_commands(text: str) -> None:
    assert device_command(text) is None

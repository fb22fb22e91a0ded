"""`labbot policy deny PLATFORM`: the deny-list policy of a platform as people read it."""

from __future__ import annotations

from pathlib import Path

from bot.views.deny import deny_lines
from tests.bot.test_cli import labbot


def test_each_platform_lists_its_own_rules_by_family() -> None:
    frr = "\n".join(deny_lines("frr", []))
    junos = "\n".join(deny_lines("juniper_junos", ["^ntp server 10\\.6"]))
    assert "shells and files (shell)\n  log-file" in frr and "log-file" not in junos
    assert "kill-switch" in frr and "routing-off" in frr
    assert "system-delete" in junos and junos.endswith(
        "site rules (LABBOT_DENY_EXTRA, never allowed):\n  ^ntp server 10\\.6"
    )
    assert "configure" in frr and "(never allowed)" in frr


def test_an_unknown_platform_names_the_known_ones() -> None:
    [line] = deny_lines("cisco_asa", [])
    assert "no deny-list policy for 'cisco_asa'" in line and "vrp" in line


def test_the_command_prints_the_policy(tmp_path: Path) -> None:
    shown = labbot("policy", "deny", "eos", cwd=tmp_path, env={"LABBOT_DATA_DIR": str(tmp_path)})
    assert shown.returncode == 0, shown.stderr
    assert "zerotouch" in shown.stdout and "sflow" in shown.stdout.casefold()

"""Lines a device's running config changes by itself, per platform: what drift ignores.

A running config read at the preview and again at the push differs in these lines without
anyone changing the device: IOS rewrites `ntp clock-period` as its clock is trimmed and stamps
`! Last configuration change` / `! NVRAM config last updated`; the `Building configuration…` /
`Current configuration : N bytes` header counts bytes; FRR prints its version and defaults.
Everything else is configuration: any other difference is drift (the device changed since the
preview), and the push refuses that device (see gateway.py).
"""

from __future__ import annotations

import difflib
import re

from workflow.model import platform_family

# `!` lines are comments a device writes itself: separators that come and go with the sections
# around them, and IOS's `! Last configuration change at …` / `! NVRAM config last updated at …`
# (EOS: `! Command: show running-config`, `! device: … (vEOS, EOS-4.x)`).
COMMENTS = r"^\s*!.*$"
HEADER = (r"^Building configuration\.\.\.$", r"^Current configuration\s*:.*$", COMMENTS)
IOS_VOLATILE = (*HEADER, r"^ntp clock-period \d+$")
VOLATILE: dict[str, tuple[str, ...]] = {
    "cisco_ios": IOS_VOLATILE,
    "cisco_xe": IOS_VOLATILE,
    "arista_eos": HEADER,
    "frr": (*HEADER, r"^frr version .*$", r"^frr defaults \S+$"),
}
MAX_DIFF_LINES = 40  # what the thread shows of a drift; the rest is counted


def stable_config(platform: str, text: str) -> str:
    """`text` without the lines the platform changes by itself (and without blank lines and
    trailing spaces, which a console adds as it pleases)."""
    rules = [re.compile(rule) for rule in VOLATILE.get(platform_family(platform), HEADER)]
    kept = []
    for line in text.splitlines():
        line = line.rstrip()
        if line and not any(rule.match(line) for rule in rules):
            kept.append(line)
    return "\n".join(kept)


def drift_diff(platform: str, previewed: str, now: str) -> str:
    """What changed since the preview, as a short unified diff ("": nothing did)."""
    before, after = stable_config(platform, previewed), stable_config(platform, now)
    if before == after:
        return ""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), "at the preview", "now", n=1, lineterm=""
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more diff lines"]
    return "\n".join(lines)

"""What the doctor found: one `Finding` per item (✓ fine, ✗ broken, ! a warning, – not
configured), each a line with its fix, or JSON. Pure."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from bot import messages

__all__ = ["failed", "shown"]

Status = Literal["ok", "fail", "warn", "off"]


@dataclass(frozen=True)
class Finding:
    area: str  # settings, database, audit, slack, matrix, llm, inventory, owners, device R1, …
    status: Status
    said: str  # what was found
    fix: str = ""  # what to do about it (a ✗ or a !)


def ok(area: str, said: str) -> Finding:
    return Finding(area, "ok", said)


def fail(area: str, said: str, fix: str = "") -> Finding:
    return Finding(area, "fail", said, fix)


def warn(area: str, said: str, fix: str = "") -> Finding:
    return Finding(area, "warn", said, fix)


def off(area: str, said: str) -> Finding:
    return Finding(area, "off", said)


def line(finding: Finding) -> str:
    fix = messages.CHECK_FIX.format(fix=finding.fix) if finding.fix else ""
    return messages.CHECK_LINE.format(
        mark=messages.CHECK_MARKS[finding.status], area=finding.area, said=finding.said, fix=fix
    )


def as_text(findings: Sequence[Finding]) -> str:
    """A line per finding, then how many are broken, warned of and fine."""
    counts = {
        status: sum(f.status == status for f in findings) for status in ("fail", "warn", "ok")
    }
    summary = messages.CHECK_SUMMARY.format(
        failed=counts["fail"], warned=counts["warn"], fine=counts["ok"]
    )
    return "\n".join([*(line(finding) for finding in findings), summary])


def failed(findings: Sequence[Finding]) -> bool:
    return any(finding.status == "fail" for finding in findings)


def json_text(findings: Sequence[Finding]) -> str:
    return json.dumps(
        {"ok": not failed(findings), "findings": [asdict(f) for f in findings]}, indent=2
    )


def shown(findings: Sequence[Finding], *, as_json: bool) -> str:
    """The findings as `labbot check` prints them: lines, or JSON."""
    return json_text(findings) if as_json else as_text(findings)

"""Policy over lines: every hostile line of issue 13 (and more of each kind, per vendor) is
refused by the deny-list; ordinary configuration around the same words passes."""

from __future__ import annotations

import pytest

from tests.security.hostile_lines import HARMLESS, HOSTILE
from tests.security.tally import attempt
from workflow.safety import DenyList


@pytest.mark.parametrize(
    ("kind", "family", "lines"), HOSTILE, ids=[f"{k}:{f}:{ls[-1][:30]}" for k, f, ls in HOSTILE]
)
def test_hostile_lines_are_refused_with_a_reason(kind: str, family: str, lines: list[str]) -> None:
    violations = DenyList().check(lines, family)
    attempt(f"deny-list: {kind}", bool(violations))
    assert violations, f"{family}: not refused: {lines}"
    assert all(v.reason for v in violations)


@pytest.mark.parametrize(("family", "lines"), HARMLESS, ids=[ls[-1][:30] for _, ls in HARMLESS])
def test_ordinary_lines_pass(family: str, lines: list[str]) -> None:
    assert DenyList().check(lines, family) == []

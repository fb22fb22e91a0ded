"""Security replays: print how many hostile attempts of each class were tried and refused."""

from __future__ import annotations

import pytest

from tests.security import tally


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if tally.TRIED:
        terminalreporter.section("security attempts (tried / refused)")
        for row in tally.table():
            terminalreporter.write_line(row)

"""The table of hostile attempts tried and refused per class (tests.security.tally), printed at
the end of the run. Loaded by tests/conftest.py, so it also runs in xdist's controller, which
collects no test: each worker sends its counts when it finishes and the controller adds them up."""

from __future__ import annotations

from typing import Any

import pytest

from tests.security import tally

WORKER_KEY = "security_tally"


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the counts to the controller
        workeroutput[WORKER_KEY] = tally.counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller: a worker finished; add what it counted."""
    counted = getattr(node, "workeroutput", {}).get(WORKER_KEY)
    if counted:
        tally.add(counted)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if tally.TRIED:
        terminalreporter.section("security attempts (tried / refused)")
        for row in tally.table():
            terminalreporter.write_line(row)

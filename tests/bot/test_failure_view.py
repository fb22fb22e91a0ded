"""Every way a device can fail has its sentence, and the sentence says the facts it was given."""

from __future__ import annotations

import pytest

from bot import messages
from bot.views.failure import failure_text
from workflow.devices.failure import FAILURE_KINDS, FailureKind, failure


def test_every_failure_kind_has_wording() -> None:
    assert set(messages.DEVICE_FAILURE) == set(FAILURE_KINDS)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        (
            "rejected",
            "the device rejected a line: % Invalid input (lines before it were applied; "
            "roll back to undo them)",
        ),
        ("cli_refused", "% Invalid input"),
        ("not_privileged", "% Invalid input"),
        ("refused", "connection refused by 10.0.0.1:22"),
        ("no_login", "no login or prompt from 10.0.0.1:22 (% Invalid input)"),
        ("timeout", "no answer from 10.0.0.1:22 in time (% Invalid input)"),
        ("unreachable", "cannot connect to 10.0.0.1:22 (% Invalid input)"),
        ("dropped", "session to 10.0.0.1:22 dropped (OSError: % Invalid input)"),
        ("fault", "OSError: % Invalid input"),
        ("crashed", "% Invalid input"),
        ("backup", "could not store the backup: % Invalid input"),
        (
            "drifted",
            "10.0.0.1:22 changed since the preview; not pushed",
        ),
        ("unknown", "10.0.0.1:22 is not in the inventory"),
        ("locked", "10.0.0.1:22 is locked by change % Invalid input"),
    ],
)
def test_failure_is_worded_with_its_facts(kind: FailureKind, said: str) -> None:
    assert failure_text(failure(kind, "10.0.0.1:22", "% Invalid input", "OSError")) == said


def test_missing_lines_are_listed() -> None:
    gone = failure("missing", lines=["router ospf 1", " network 10.0.0.0/24 area 0"])
    assert failure_text(gone) == (
        "not in the running config after the push: router ospf 1;  network 10.0.0.0/24 area 0"
    )


@pytest.mark.parametrize(
    ("step", "said", "shown"),
    [
        (
            "set cli screen-width 511",
            ["R1>"],
            "logged in to 10.0.0.1:22, but the session's set-up stopped at "
            "`set cli screen-width 511` (ReadTimeout); the device last said `R1>`",
        ),
        (
            "",
            [],
            "logged in to 10.0.0.1:22, but the session's set-up stopped at finding its prompt "
            "(ReadTimeout); the device last said nothing",
        ),
    ],
)
def test_a_session_set_up_failure_names_the_step_and_the_last_words(
    step: str, said: list[str], shown: str
) -> None:
    assert failure_text(failure("setup", "10.0.0.1:22", step, "ReadTimeout", said)) == shown

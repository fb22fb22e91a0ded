"""How a finished change is said: the workflow's typed endings (at a gate, after the offer to
roll back) worded with bot/messages.py."""

from __future__ import annotations

from datetime import datetime

from base.vocabulary import stamp
from bot import messages
from workflow.api import Finished
from workflow.state import RollbackEnding


def ending_line(finished: Finished) -> str:
    """Why the change ended, in one line: worded here when it ended at a gate."""
    ending = finished.ending
    if ending is None:
        return finished.message
    return messages.ENDED_AT_GATE[ending["kind"]].format(
        gate=ending["gate"],
        at=_stamp(ending["at"]),
        actor=ending["actor"],
        pushed=messages.NOTHING_MORE_PUSHED if ending["pushed"] else messages.NOTHING_PUSHED,
    )


def rollback_line(ending: RollbackEnding | None) -> str:
    """How the offer to roll back failed post-checks ended ("" when there was none)."""
    if ending is None:
        return ""
    return messages.ROLLBACK_ENDED[ending["kind"]].format(
        failures=ending["failures"], at=_stamp(ending["at"]), actor=ending["actor"]
    )


def _stamp(iso: str) -> str:
    return stamp(datetime.fromisoformat(iso))

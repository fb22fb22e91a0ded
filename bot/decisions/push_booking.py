"""What the audit keeps of a push: each device's row from its push record
(workflow.results.push_records),
and the pushes running now, so a stop books those it cuts short (bot/runtime/shutdown.py).

The reporter keeps the pushes in flight up to date and books a step's push records as these rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adapters.chat import ThreadRef
from bot import messages
from bot.views.postcheck import item_body
from storage.audit_records import DevicePush
from workflow.hashing import lines_sha256
from workflow.model import ItemStatus, PushProgress, ResponseItem
from workflow.results.push_records import PushRecord

__all__ = ["PushesInFlight", "push_row"]


@dataclass
class Push:
    """One running push: its thread, the lines per device, each device's last progress stage
    ("waiting" before it started)."""

    thread: ThreadRef
    lines: dict[str, list[str]]
    stages: dict[str, str]

    def record(self, device: str) -> PushRecord:
        """The device's push record as it stands (its backups are not known here)."""
        status: ItemStatus = "success" if self.stages[device] == "done" else "failed"
        return PushRecord(
            device=device,
            lines=self.lines[device],
            before_backup=None,
            after_backup=None,
            push=ResponseItem(id=device, name=device, status=status),
            post_check=None,
        )


@dataclass
class PushesInFlight:
    """The pushes running now, by change id (the reporter keeps it up to date; a stop books
    those it cuts short, bot/runtime/shutdown.py)."""

    runs: dict[str, Push] = field(default_factory=dict)

    def begin(self, change_id: str, thread: ThreadRef, lines: dict[str, list[str]]) -> None:
        self.runs[change_id] = Push(thread, lines, dict.fromkeys(lines, "waiting"))

    def progress(self, change_id: str, event: PushProgress) -> None:
        if change_id in self.runs:
            self.runs[change_id].stages[event.device] = event.stage

    def end(self, change_id: str) -> None:
        self.runs.pop(change_id, None)


def push_row(record: PushRecord, stopped: str | None = None) -> DevicePush:
    """The audit row of a push record (workflow.results.push_records): the lines applied and
    verified,
    else why not, with its post-checks' result apart. `stopped`: the push was cut short by a
    stop (bot/runtime/shutdown.py) with the device at this status."""
    push, check = record["push"], record["post_check"]
    if stopped is not None:
        detail = messages.PUSH_CUT_SHORT[stopped]
    elif push["status"] == "success":
        detail = messages.PUSHED_VERIFIED.format(count=len(record["lines"]))
    else:
        detail = item_body(push)
    row = DevicePush(
        device=record["device"],
        lines_sha256=lines_sha256(record["lines"]),
        status=stopped or push["status"],
        detail=detail,
    )
    if check is not None:
        row["post_check"], row["post_check_detail"] = check["status"], item_body(check)
    if record["before_backup"] is not None:
        row["before_backup"] = record["before_backup"]
    if record["after_backup"] is not None:
        row["after_backup"] = record["after_backup"]
    return row

"""How a push record (workflow.push_records) is booked in the audit: one row per device, the
push's own result and its post-checks' result apart, worded with bot/messages/."""

from __future__ import annotations

from bot import messages
from bot.postcheck_view import item_body
from storage.audit_records import DevicePush
from workflow.hashing import lines_sha256
from workflow.push_records import PushRecord


def push_row(record: PushRecord, stopped: str | None = None) -> DevicePush:
    """The audit row of `record`: the lines applied and verified, else why not. `stopped`: the
    push was cut short by a stop (bot/shutdown.py) with the device at this status."""
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

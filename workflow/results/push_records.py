"""What each push did, device by device: the records a step hands the bot, which books them once.

The push node writes one record per device of its plan (the lines sent, the backups stored around
the push, the push's own result); the post-check node adds each device's post-check result beside
it, never into it: a device whose lines were applied stays pushed when its post-check fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from workflow.model import BackupStage, ResponseItem, StandardResponse

__all__ = ["PushRecord", "push_records", "with_checks"]


class PushRecord(TypedDict):
    """One device of one push (JSON-shaped: it is kept in the graph's state)."""

    device: str
    lines: list[str]  # exactly what was sent
    before_backup: str | None  # backup_id of its running config before the push, None: none
    after_backup: str | None  # … and after it
    push: ResponseItem  # the push and its verification
    post_check: ResponseItem | None  # the post-checks on this device, None: none ran


def backup_id(change_id: str, device: str, stage: BackupStage) -> str:
    """How a stored backup is named: its change, device and stage (the backups' key)."""
    return f"{change_id}/{device}/{stage}"


def push_records(
    change_id: str, plan: Mapping[str, Sequence[str]], result: StandardResponse
) -> list[PushRecord]:
    """One record per device of `result`, the gateway's answer to pushing `plan` as
    `change_id` (a rollback push has its own, `…:rollback`: its backups are named by it)."""
    stored: dict[str, list[str]] = result.get("metadata", {}).get("backups", {})
    return [
        PushRecord(
            device=item["name"],
            lines=list(plan.get(item["name"], ())),
            before_backup=_backup(stored, change_id, item["name"], "before"),
            after_backup=_backup(stored, change_id, item["name"], "after"),
            push=item,
            post_check=None,
        )
        for item in result["data"]
    ]


def with_checks(
    records: list[PushRecord], latest: int, checks: StandardResponse
) -> list[PushRecord]:
    """`records` with the post-check result of each device checked beside its push result, in
    the `latest` records (the push the checks followed; earlier pushes are left as they were)."""
    outcome = {item["name"]: item for item in checks["data"]}
    earlier = records[: len(records) - latest]
    checked = []
    for record in records[len(records) - latest :]:
        if record["device"] in outcome:
            record = PushRecord(**record)
            record["post_check"] = outcome[record["device"]]
        checked.append(record)
    return [*earlier, *checked]


def _backup(
    stored: Mapping[str, Sequence[str]], change_id: str, device: str, stage: BackupStage
) -> str | None:
    return backup_id(change_id, device, stage) if stage in stored.get(device, ()) else None

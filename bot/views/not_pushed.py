"""The devices a push did not change as approved (changed since the preview, or their push
failed), as the rollback gate and how its offer ended say them. Pure."""

from __future__ import annotations

from base.masking import SecretMask
from bot import messages
from bot.views.landing import Section
from bot.views.postcheck import failures_text
from workflow.phases.postcheck_report import not_pushed
from workflow.phases.reviews import RollbackReview
from workflow.results.endings import RollbackEnding


def not_pushed_gate(payload: RollbackReview, mask: SecretMask) -> tuple[str, list[Section]]:
    """The rollback gate's note naming those devices with why, and that neither choice changes
    those Roll back has no lines for; what changed on each device changed since its preview
    ("", [] when none)."""
    left = not_pushed(payload["push"], payload["post_checks"])
    if not left:
        return "", []
    note = messages.NOT_PUSHED_AT_GATE.format(failures=failures_text(left))
    alone = [item["name"] for item in left if item["name"] not in payload["devices"]]
    if alone:  # a device with rollback lines (a line rejected mid-push) is undone by Roll back
        note += messages.NOT_PUSHED_LEFT.format(devices=", ".join(alone))
    drifted: dict[str, str] = payload["push"].get("metadata", {}).get("drifted", {})
    sections = [
        (messages.DRIFT_SECTION.format(device=name), mask.config(diff), "diff")
        for name, diff in sorted(drifted.items())
    ]
    return note, sections


def not_pushed_ended(ending: RollbackEnding) -> str:
    """The devices the push left as they were, after the offer ended ("" when none)."""
    left = ending.get("not_pushed")
    return messages.NOT_PUSHED_ENDED.format(failures=failures_text(left)) if left else ""

"""How a failed push's read back is said: what landed on the device (workflow.model.Landed),
then why the push failed, worded with bot/messages/devices.py; and the rollback gate it opens.
Pure."""

from __future__ import annotations

from base.masking import SecretMask
from bot import messages
from bot.views.landing import Section
from workflow.model import Landed
from workflow.phases.reviews import RollbackReview


def landed_text(landed: Landed, device: str, then: str) -> str:
    """`landed 2 of 3 lines on SW1: vlan 42; vlan 42 > name LABTEST; <then>`."""
    return messages.LANDED[landed["kind"]].format(
        device=device,
        count=len(landed["lines"]),
        total=landed["total"],
        lines="; ".join(landed["lines"]),
        unread=landed.get("unread", ""),
        then=then,
    )


def landed_somewhere(landed: Landed | None) -> bool:
    """Whether the device holds some of the push, as read back (unknown is not counted)."""
    return landed is not None and landed["kind"] in ("some", "all")


def broke_off_gate(
    change_id: str, payload: RollbackReview, mask: SecretMask
) -> tuple[str, list[Section]]:
    """The rollback gate after a push broke off (no post-check ran): the devices, and per
    device the lines that undo what landed (what landed on each: `not_pushed_gate`'s note)."""
    broken = [item["name"] for item in payload["push"]["data"] if "landed" in item]
    text = messages.PUSH_BROKE_OFF_GATE.format(change_id=change_id, devices=", ".join(broken))
    sections = [
        (
            messages.SECTION_ROLLBACK_LINES.format(device=name),
            mask.config("\n".join(device["lines"])),
            "text",
        )
        for name, device in payload["devices"].items()
    ]
    return text, sections

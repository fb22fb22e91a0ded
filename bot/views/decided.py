"""What a closed gate says: who decided it (the footer that takes its buttons' place), and what
a late click is told. Pure; the gate itself is not rendered again."""

from __future__ import annotations

from base.masking import SecretMask
from base.vocabulary import Choice, GateName, stamp
from bot import messages
from storage.audit_records import Resolution

__all__ = ["already_decided", "decided_footer"]


def decided_footer(
    gate: GateName,
    choice: Choice,
    actor: str,
    at: str,
    mask: SecretMask,
    feedback: str | None = None,
) -> str:
    """Who decided; a Modify's feedback repeated with no secret value (the team reads it); the
    rollback gate's Keep said as keeping, not cancelling (the change goes on as pushed)."""
    if in_rollback_words(gate, choice):
        return messages.ROLLBACK_FOOTER[choice].format(actor=actor, at=at)
    shown = mask.said(feedback or "")
    return messages.DECIDED_FOOTER[choice].format(actor=actor, at=at, feedback=shown)


def already_decided(resolution: Resolution) -> str:
    """The sentence a late click gets: who settled the gate, how (the rollback gate's Keep as
    keeping), and when."""
    words = messages.CHOICE_PAST
    if in_rollback_words(resolution.gate, resolution.choice):
        words = messages.ROLLBACK_CHOICE_PAST
    return messages.ALREADY_DECIDED.format(
        choice=words[resolution.choice], actor=resolution.actor_name, at=stamp(resolution.at)
    )


def in_rollback_words(gate: GateName, choice: Choice) -> bool:
    """The rollback gate says its two choices in its own words (Roll back, Keep the change)."""
    return gate == "rollback" and choice in messages.ROLLBACK_FOOTER

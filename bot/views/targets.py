"""The targets gate as people read it: how many devices a request selects and which (bounded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot import messages
from workflow.chosen import Because
from workflow.phases.reviews import TargetsReview

TARGETS_SHOWN = 50  # devices listed one a line, with why each was chosen
TARGETS_NAMED = 200  # more are named on one line; the rest only counted


def targets_sections(
    change_id: str, payload: TargetsReview
) -> tuple[str, list[tuple[str, str, str]]]:
    """How many devices and which: the first TARGETS_SHOWN with why each was chosen, the rest
    by name only, cut at TARGETS_NAMED (the payload and its hash hold every one)."""
    chosen = payload["devices"]
    names = list(chosen)
    count = len(names)
    text = messages.TARGETS_GATE.format(change_id=change_id, count=count, limit=payload["limit"])
    lines = [f"{name} ({because(chosen[name])})" for name in names[:TARGETS_SHOWN]]
    rest = names[TARGETS_SHOWN:]
    if rest:
        listed = ", ".join(rest[:TARGETS_NAMED]) + (", …" if len(rest) > TARGETS_NAMED else "")
        lines.append(messages.TARGETS_MORE.format(count=len(rest), names=listed))
    title = messages.SECTION_TARGETS.format(shown=min(count, TARGETS_SHOWN), count=count)
    return text, [(title, "\n".join(lines), "text")]


def devices_with_reasons(names: Sequence[str], chosen: Mapping[str, Because]) -> str:
    """The devices on one line, those chosen for the same reason together, in order:
    "R1, R2, R3 (router: kind in the inventory), SW1 (named)"."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(because(chosen[name]) if name in chosen else "", []).append(name)
    return ", ".join(
        f"{', '.join(group)} ({why})" if why else ", ".join(group) for why, group in groups.items()
    )


def because(why: Because) -> str:
    """Why the request chose a device: "named", "matches R*", "router (inventory group core)"."""
    if isinstance(why, str):  # a checkpoint from before typed reasons said it in words
        return why
    source = messages.KIND_FROM[why["source"]].format(detail=why["detail"], kind=why["word"])
    return messages.CHOSEN[why["kind"]].format(word=why["word"], source=source)

"""Topology pictures for the thread: the lab at the params gate (targets highlighted), after the
push (coloured by each device's result), and on demand (`topology`). Drawn in a worker thread
so the event loop keeps serving; a picture that cannot be made is logged, never a failure of the
message it goes with."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.chat import FileAttachment
from bot import messages
from workflow.api import Finished, LabLayout, ParamsGate, RollbackGate, Step
from workflow.model import StandardResponse
from workflow.ports import LabReader

if TYPE_CHECKING:  # Pillow loads with the first picture, not with the bot
    from bot.topology_picture import Role

log = logging.getLogger(__name__)
PICTURE_NAME = "topology.png"


@dataclass(frozen=True)
class LabPictures:
    lab: LabReader

    async def picture(
        self, roles: Mapping[str, Role], title: str, lab: LabLayout | None = None
    ) -> FileAttachment | None:
        """The lab drawn with `roles`: `lab` as already read, else read now; None (logged) when
        it cannot be read or drawn."""
        try:
            from bot.topology_picture import draw_lab

            lab = lab or await self.read()
            drawn = await asyncio.to_thread(draw_lab, lab.devices, lab.links, dict(roles), title)
        except Exception as exc:  # a picture is a convenience: the change goes on without it
            log.warning("no topology picture for %r: %s", title, exc)
            return None
        return FileAttachment(
            PICTURE_NAME,
            drawn.png,
            "image/png",
            image=True,
            alt=title,
            width=drawn.width,
            height=drawn.height,
        )

    async def read(self) -> LabLayout:
        """The lab as the inventory holds it now."""
        devices, links, _ = await self.lab.devices()
        return LabLayout.of(devices, links)

    async def of_step(self, step: Step) -> FileAttachment | None:
        """The picture a step carries: the params gate's targets, a push's results; else None.
        PictureNotDrawn when the step has one but it could not be drawn (logged)."""
        subject = _subject(step)
        if subject is None:
            return None
        roles, title = subject
        picture = await self.picture(roles, title, step.lab)  # the lab as the change read it
        if picture is None:
            raise PictureNotDrawn(title)
        return picture


class PictureNotDrawn(Exception):
    """A step's picture could not be drawn; why is in the log."""


def _subject(step: Step) -> tuple[dict[str, Role], str] | None:
    """Who is coloured how, and the title, in a step's picture; None: the step has none."""
    if isinstance(step, ParamsGate):
        roles: dict[str, Role] = {name: "target" for name in step.payload["devices"]}
        return roles, messages.PICTURE_TARGETS.format(change_id=step.change_id)
    if isinstance(step, RollbackGate):
        roles = push_roles(step.payload["push"], step.payload["post_checks"])
        return roles, messages.PICTURE_RESULTS.format(change_id=step.change_id)
    if isinstance(step, Finished) and step.result is not None and step.result["data"]:
        return push_roles(step.result), messages.PICTURE_RESULTS.format(change_id=step.change_id)
    return None


def push_roles(
    push: StandardResponse, post_checks: StandardResponse | None = None
) -> dict[str, Role]:
    """Each pushed device: pushed, failed, or pushed with a failed post-check."""
    roles: dict[str, Role] = {
        item["name"]: "pushed" if item["status"] == "success" else "failed" for item in push["data"]
    }
    for item in post_checks["data"] if post_checks else []:
        if item["status"] != "success" and roles.get(item["name"]) == "pushed":
            roles[item["name"]] = "postcheck_failed"
    return roles

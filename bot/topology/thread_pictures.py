"""Topology pictures for the thread: the lab at the params gate (targets highlighted), after the
push (devices by their result, links by their sessions' post-checks), and on demand
(`topology`). Drawn in a worker thread
so the event loop keeps serving; a picture that cannot be made is logged, never a failure of the
message it goes with."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adapters.chat import FileAttachment
from bot import messages
from bot.topology.running_sessions import ospf_sessions
from bot.topology.scene import MAX_DEVICES, Role, scene_of
from workflow.api import Finished, LabLayout, ParamsGate, RollbackGate, Step
from workflow.model import Device, StandardResponse
from workflow.ports import LabReader
from workflow.postchecks.routing_sessions import SessionState

if TYPE_CHECKING:
    from bot.topology.picture import Picture

__all__ = ["PICTURE_NAME", "LabPictures", "PictureNotDrawn", "step_picture"]

log = logging.getLogger(__name__)
PICTURE_NAME = "topology.png"


@dataclass(frozen=True)
class LabPictures:
    lab: LabReader

    async def picture(
        self,
        title: str,
        lab: LabLayout | None = None,
        roles: Mapping[str, Role] | None = None,
        result: StandardResponse | None = None,
        running: Sequence[SessionState] = (),
    ) -> FileAttachment | None:
        """The lab drawn (bot.topology.scene: `roles`, else `result`'s; links by `running`
        sessions too): `lab` as already read, else read now; None (logged) when it cannot be
        read or drawn."""
        try:
            lab = lab or await self.read()
            drawn = await asyncio.to_thread(draw_scene, lab, title, roles, result, running)
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
        """The lab as the inventory holds it now, with every device's facts (interfaces and
        addresses: configuration merged with state) where they can be read."""
        return (await self._read())[0]

    async def read_running(self) -> tuple[LabLayout, list[SessionState]]:
        """The lab as `read` has it, and the OSPF sessions its devices run now."""
        layout, devices = await self._read()
        return layout, await ospf_sessions(self.lab, devices, layout)

    async def _read(self) -> tuple[LabLayout, list[Device]]:
        devices, links, _ = await self.lab.devices()
        facts = await self.lab.facts([device.name for device in devices][:MAX_DEVICES])
        usable = {name: device for name, device in facts.items() if "error" not in device}
        return LabLayout.of(devices, links, usable), devices

    async def of_step(self, step: Step) -> FileAttachment | None:
        """The picture a step carries: the params gate's targets, a push's results; else None.
        PictureNotDrawn when the step has one but it could not be drawn (logged)."""
        subject = _subject(step)
        if subject is None:
            return None
        title, roles, result = subject
        picture = await self.picture(title, step.lab, roles, result)  # the lab the change read
        if picture is None:
            raise PictureNotDrawn(title)
        return picture


def step_picture(step: Step) -> Picture | None:
    """A step's picture drawn here (the report's: no inventory read, the lab the change read);
    None when the step has none or it cannot be drawn (logged)."""
    subject = _subject(step)
    if subject is None or step.lab is None:
        return None
    title, roles, result = subject
    try:
        return draw_scene(step.lab, title, roles, result)
    except Exception as exc:  # a picture is a convenience: the report goes on without it
        log.warning("no topology picture for %r: %s", title, exc)
        return None


def draw_scene(
    lab: LabLayout,
    title: str,
    roles: Mapping[str, Role] | None = None,
    result: StandardResponse | None = None,
    running: Sequence[SessionState] = (),
) -> Picture:
    """The lab's picture, drawn here (Pillow loads with the first picture, not with the bot)."""
    from bot.topology.picture import draw_lab

    return draw_lab(scene_of(lab, roles, result, running), title)


class PictureNotDrawn(Exception):
    """A step's picture could not be drawn; why is in the log."""


Subject = tuple[str, dict[str, Role] | None, StandardResponse | None]


def _subject(step: Step) -> Subject | None:
    """A step picture's title and who is coloured how (targets, or a push's result with its
    post-checks); None: the step has none."""
    if isinstance(step, ParamsGate):
        roles: dict[str, Role] = {name: "target" for name in step.payload["devices"]}
        return messages.PICTURE_TARGETS.format(change_id=step.change_id), roles, None
    if isinstance(step, RollbackGate):
        return messages.PICTURE_RESULTS.format(change_id=step.change_id), None, step.payload["push"]
    if isinstance(step, Finished) and step.result is not None and step.result["data"]:
        return messages.PICTURE_RESULTS.format(change_id=step.change_id), None, step.result
    return None

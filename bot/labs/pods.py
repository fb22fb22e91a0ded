"""A pod group's labs, found where they are: the GNS3 projects of a server whose names match
(`pod-*`), or the deployed containerlab labs (`clab-NAME/`) under a folder. Found at start, and
again while serving (bot.runtime.pod_refresh: when a place no lab answers for speaks, and every
LABBOT_LABS_REFRESH_SECONDS)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from base.errors import ConfigError
from bot import messages
from bot.labs.spec import (
    ContainerlabPods,
    GNS3Pods,
    GNS3Source,
    InventorySource,
    Lab,
    LabsFile,
    PodGroup,
    Source,
    filled,
    matched,
)
from workflow.devices.inventories.containerlab import TOPOLOGY_DATA
from workflow.devices.inventories.gns3 import project_names

__all__ = ["group_labs", "students_elsewhere"]

CLAB_PREFIX = "clab-"


async def all_labs(labs_file: LabsFile, secrets: Mapping[str, str]) -> tuple[Lab, ...]:
    """The labs the file names, then each group's pods as found now (in name order); `secrets`
    resolves a reference (the GNS3 login's password)."""
    found = [*labs_file.labs]
    for group in labs_file.groups:
        found += [pod_lab(group, name, source) for name, source in await pods(group, secrets)]
    _no_two_alike(found)
    return tuple(found)


async def group_labs(group: PodGroup, secrets: Mapping[str, str]) -> tuple[Lab, ...]:
    """The labs of `group`'s pods as found now (in name order)."""
    return tuple(pod_lab(group, name, source) for name, source in await pods(group, secrets))


async def pods(group: PodGroup, secrets: Mapping[str, str]) -> list[tuple[str, Source]]:
    """(the pod's name, its source) for each lab of the group found now."""
    source = group.source
    if isinstance(source, GNS3Pods):
        password = secrets.get(source.password_ref or "")
        names = await project_names(source.url, user=source.user, password=password)
        return [
            (name, GNS3Source(source.url, name, source.user, source.password_ref))
            for name in names
            if matched(source.projects, name) is not None
        ]
    return await asyncio.to_thread(_deployed_under, source)


def _deployed_under(source: ContainerlabPods) -> list[tuple[str, Source]]:
    if not source.under.is_dir():
        raise ConfigError(messages.LABS_NO_FILE.format(path=source.under))
    found: list[tuple[str, Source]] = []
    for directory in sorted(source.under.iterdir()):
        name = directory.name.removeprefix(CLAB_PREFIX)
        if (
            directory.name.startswith(CLAB_PREFIX)
            and matched(source.labs, name) is not None
            and (directory / TOPOLOGY_DATA).is_file()
        ):
            found.append((name, InventorySource(directory)))
    return found


def pod_lab(group: PodGroup, name: str, source: Source) -> Lab:
    """The lab of pod `name`: its places from the group's patterns, its students, and the
    group's instructors and rules."""
    part = matched(group.pattern, name) or ""
    students = dict(group.students).get(name, ())
    return Lab(
        name=name,
        source=source,
        line=group.line,
        slack=tuple(filled(p, part) for p in group.slack),
        matrix=tuple(filled(p, part) for p in group.matrix),
        requesters=group.requesters,
        owners=group.owners,
        credentials=group.credentials,
        limits=group.limits,
        device_types=group.device_types,
        group=group.name,
        instructors=group.instructors,
        students=students,
        agents=group.agents,
    )


def students_elsewhere(lab: Lab, labs: tuple[Lab, ...]) -> dict[str, str]:
    """The students of the other pods of `lab`'s group (who are not also `lab`'s people) ->
    their own pod: refused in `lab`, and told where theirs is."""
    if not lab.group:
        return {}
    own = {*lab.students, *lab.instructors, *lab.approvers, *lab.requesters}
    return {
        student: pod.name
        for pod in labs
        if pod.group == lab.group and pod.name != lab.name
        for student in pod.students
        if student not in own
    }


def _no_two_alike(labs: list[Lab]) -> None:
    names: dict[str, Lab] = {}
    places: dict[str, str] = {}
    for lab in labs:
        if lab.name in names:
            raise ConfigError(messages.LABS_POD_TAKEN.format(name=lab.name, group=lab.group))
        names[lab.name] = lab
        for place in (*lab.slack, *lab.matrix):
            if place in places:
                said = messages.LABS_POD_PLACE_TAKEN.format(
                    place=place, lab=lab.name, other=places[place]
                )
                raise ConfigError(f"LABBOT_LABS: {said}")
            places[place] = lab.name


def source_path(source: Source) -> Path | None:
    return source.path if isinstance(source, InventorySource) else None

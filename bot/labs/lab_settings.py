"""A lab as the settings it runs on: the deployment's settings with the lab's source, device
login, people and limits put in (each lab's runtime is built from them as one lab is today), and
the secrets its references name, resolved."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from base.errors import ConfigError
from bot import messages
from bot.labs.labs_file import read_labs_file
from bot.labs.pods import all_labs, group_labs
from bot.labs.spec import GNS3Source, InventorySource, Lab, PodGroup
from bot.settings import Settings

__all__ = [
    "ChosenLab",
    "chosen_lab",
    "configured_labs",
    "found_pods",
    "lab_named",
    "pod_groups",
    "settings_for",
]


class Secrets(Mapping[str, str]):
    """A reference's value: the labbot setting of that name, else the environment variable."""

    def __init__(self, settings: Settings, environ: Mapping[str, str] | None = None) -> None:
        self._settings = settings
        self._environ = os.environ if environ is None else environ
        fields = Settings.model_fields.items()
        self._aliases = {f.validation_alias: name for name, f in fields}

    def __getitem__(self, name: str) -> str:
        field = self._aliases.get(name)
        value = getattr(self._settings, field) if isinstance(field, str) else None
        if isinstance(value, SecretStr):
            return value.get_secret_value()
        if isinstance(value, str) and value:
            return value
        return self._environ[name]

    def __iter__(self) -> Any:
        return iter(self._environ)

    def __len__(self) -> int:
        return len(self._environ)


class _Resolved:
    """A lab's references resolved; one set nowhere is one line naming it and the lab."""

    def __init__(self, secrets: Secrets, lab: Lab) -> None:
        self._secrets, self._lab = secrets, lab

    def __getitem__(self, name: str) -> str:
        try:
            return self._secrets[name]
        except KeyError:
            said = messages.LABS_REFERENCE_UNSET.format(name=name)
            raise ConfigError(f"LABBOT_LABS: lab {self._lab.name}: {said}") from None


async def configured_labs(settings: Settings) -> tuple[Lab, ...]:
    """The labs LABBOT_LABS names (pods found now; an agent a lab names is one of
    LABBOT_MCP_AGENTS); () without a labs file: the settings' one lab, as ever."""
    if settings.labs is None:
        return ()
    labs_file = read_labs_file(settings.labs, agents=frozenset(settings.mcp_agents))
    return await all_labs(labs_file, Secrets(settings))


def pod_groups(settings: Settings) -> tuple[PodGroup, ...]:
    """The pod groups LABBOT_LABS names (none without a labs file)."""
    return () if settings.labs is None else read_labs_file(settings.labs).groups


async def found_pods(settings: Settings, group: PodGroup) -> tuple[Lab, ...]:
    """The labs of `group`'s pods as found now."""
    return await group_labs(group, Secrets(settings))


def lab_named(labs: tuple[Lab, ...], name: str) -> Lab:
    for lab in labs:
        if lab.name == name:
            return lab
    names = ", ".join(lab.name for lab in labs) or "none"
    raise ConfigError(messages.LABS_NO_LAB_NAMED.format(name=name, names=names))


@dataclass(frozen=True)
class ChosenLab:
    """The lab a command was told to work on (`--lab NAME`), the settings it runs on, and every
    lab of the file (a pod's students are refused in the other pods)."""

    lab: Lab
    settings: Settings
    labs: tuple[Lab, ...]


async def chosen_lab(settings: Settings, name: str) -> ChosenLab:
    """Lab `name` of LABBOT_LABS (its pods found now) and the settings it runs on; a name no
    lab has is one line listing the labs. Callers refuse `--lab` without a labs file first."""
    labs = await configured_labs(settings)
    lab = lab_named(labs, name)
    return ChosenLab(lab, settings_for(settings, lab), labs)


def settings_for(
    settings: Settings, lab: Lab, environ: Mapping[str, str] | None = None
) -> Settings:
    """The settings lab `lab` runs on. Its people replace the deployment's approvers and
    requesters when it names any (a pod: its group's instructors and its own students); its
    limits, login and device types replace the deployment's where it sets them."""
    secrets = _Resolved(Secrets(settings, environ), lab)
    update: dict[str, Any] = {"inventory": None, "gns3_url": None, "gns3_project": None}
    source = lab.source
    if isinstance(source, InventorySource):
        update["inventory"] = source.path
    elif isinstance(source, GNS3Source):
        update |= {"gns3_url": source.url, "gns3_project": source.project}
        update["gns3_user"] = source.user or settings.gns3_user
        if source.password_ref:
            update["gns3_password"] = SecretStr(secrets[source.password_ref])
    login = lab.credentials
    if login.username:
        update["device_username"] = login.username
    if login.password_ref:
        update["device_password"] = SecretStr(secrets[login.password_ref])
    if login.secret_ref:
        update["device_secret"] = SecretStr(secrets[login.secret_ref])
    approvers = (*lab.approvers, *lab.instructors, *lab.students)
    if approvers:
        update["approvers"] = list(dict.fromkeys(approvers))
    if lab.requesters or lab.students:
        people = (*lab.requesters, *lab.instructors, *lab.students)
        update["requesters"] = list(dict.fromkeys(people))
    if lab.owners is not None:
        update["owners"] = lab.owners
    if lab.device_types:
        update["device_types"] = dict(lab.device_types)
    update |= dict(lab.limits)
    return settings.model_copy(update=update)

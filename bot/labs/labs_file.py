"""The labs file (LABBOT_LABS, YAML): each lab, each pod group, checked before anything starts,
so a mistake is one line naming the file, the line and the fix (as the inventory's hosts file
is, workflow.devices.inventories.hosts_file).

```yaml
labs:
  staging:
    inventory: staging/hosts.yaml          # or gns3: {url, project, user, password}
    slack: ["#staging", C0123ABCD]          # channel names or ids
    matrix: ["#staging:example.org"]        # room aliases or ids
    approvers: [U0ALICE]
    owners: staging/owners.txt
    credentials: {username: admin, password: STAGING_PASSWORD, secret: STAGING_SECRET}
    limits: {max_targets: 20, max_open: 10}
    agents: [claude-code]                   # agents of LABBOT_MCP_AGENTS that may work here
pods:
  ccna:
    gns3: {url: http://gns3:3080, projects: pod-*, user: admin, password: GNS3_PASSWORD}
    slack: "#pod-*"                         # the `*`: what the project's name matched
    instructors: [U0TEACH]
    students: {pod-1: [U0ANN], pod-2: [U0BEN]}
```

A secret is never written in the file: `password`, `secret` (and GNS3's `password`) name the
environment variable (or labbot setting) holding it; a value that is not such a name is refused.
An agent named in `agents:` must be one of LABBOT_MCP_AGENTS (when the caller says which).
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from base.errors import ConfigError
from bot import messages
from bot.labs.spec import (
    ContainerlabPods,
    Credentials,
    GNS3Pods,
    GNS3Source,
    InventorySource,
    Lab,
    LabsFile,
    PodGroup,
    Source,
    matched,
)
from bot.settings import Settings, check_who

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
NULL_TAG = "tag:yaml.org,2002:null"
REFERENCE = re.compile(r"^[A-Z][A-Z0-9_]*$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# limits a lab may set lower or higher than the deployment's, each the setting of its name
LIMITS = {
    "max_targets": 1,
    "max_open": 1,
    "max_open_per_user": 1,
    "max_open_per_channel": 1,
    "max_reads_per_minute": 1,
    "read_channel_budget": 1000,
    "push_approvals": 1,
    "template_approvals": 1,
}
SOURCES = ("inventory", "containerlab", "gns3")
PLACES = ("slack", "matrix")
COMMON = ("owners", "credentials", "limits", "device_types", "requesters", "agents")
LAB_KEYS = (*SOURCES, *PLACES, *COMMON, "approvers")
GROUP_KEYS = ("gns3", "containerlab", *PLACES, *COMMON, "instructors", "students")


def setting_names() -> frozenset[str]:
    """The environment names of labbot's settings (a reference may name one of them)."""
    aliases = (f.validation_alias for f in Settings.model_fields.values())
    return frozenset(a for a in aliases if isinstance(a, str))


class _At:
    """A node of the file, with what it is (`labs.pod-1.slack`) for the errors that name it."""

    def __init__(self, path: Path, node: yaml.Node, what: str, key_line: int = 0) -> None:
        self.path, self.node, self.what = path, node, what
        self.key_line = key_line or self.line  # the line of its key (`staging:`)

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1

    def fail(self, problem: str) -> ConfigError:
        whole = isinstance(self.node, yaml.MappingNode)  # a lab or group: its name's line
        line = self.key_line if whole else self.line
        said = messages.LABS_FILE_LINE.format(
            path=self.path, line=line, what=self.what, problem=problem
        )
        return ConfigError(said)

    def mapping(self, known: tuple[str, ...] = ()) -> dict[str, _At]:
        if not isinstance(self.node, yaml.MappingNode):
            raise self.fail(messages.LABS_NOT_A_MAPPING)
        items: dict[str, _At] = {}
        for key, value in self.node.value:
            name = str(key.value)
            what = f"{self.what}.{name}" if self.what else name
            at = _At(self.path, value, what, key.start_mark.line + 1)
            if name in items:
                raise _At(self.path, key, at.what).fail(messages.LABS_TWICE)
            if known and name not in known:
                said = messages.LABS_UNKNOWN_KEY.format(key=name, known=", ".join(known))
                raise _At(self.path, key, at.what).fail(said)
            items[name] = at
        return items

    def text(self) -> str:
        if not isinstance(self.node, yaml.ScalarNode) or self.node.tag == NULL_TAG:
            raise self.fail(messages.LABS_NOT_TEXT)
        value = str(self.node.value).strip()
        if not value:
            raise self.fail(messages.LABS_NOT_TEXT)
        return value

    def texts(self) -> tuple[str, ...]:
        """One text or a list of them."""
        if isinstance(self.node, yaml.SequenceNode):
            return tuple(_At(self.path, n, self.what).text() for n in self.node.value)
        return (self.text(),)

    def number(self, lowest: int) -> int:
        text = self.text()
        if not text.isdigit() or int(text) < lowest:
            raise self.fail(messages.LABS_NOT_A_NUMBER.format(lowest=lowest))
        return int(text)

    def who(self) -> tuple[str, ...]:
        tokens = self.texts()
        try:
            check_who(list(tokens))
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        return tokens

    def file(self, base: Path) -> Path:
        path = Path(self.text()).expanduser()
        return path if path.is_absolute() else base / path

    def reference(self, environ: Mapping[str, str], settings: frozenset[str]) -> str:
        """The name of the environment variable (or setting) holding a secret."""
        name = self.text()
        if not REFERENCE.match(name):
            key = self.what.rsplit(".", 1)[-1]
            raise self.fail(messages.LABS_LITERAL_SECRET.format(key=key))
        if name not in environ and name not in settings:
            raise self.fail(messages.LABS_REFERENCE_UNSET.format(name=name))
        return name


def read_labs_file(
    path: Path,
    environ: Mapping[str, str] | None = None,
    agents: Collection[str] | None = None,
) -> LabsFile:
    """The labs and pod groups of `path`, or ConfigError naming the line and the fix. `agents`:
    the agents of LABBOT_MCP_AGENTS, which an `agents:` list may name (None: not checked)."""
    environ = os.environ if environ is None else environ
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(messages.LABS_NO_FILE.format(path=path)) from None
    except OSError as exc:
        raise ConfigError(messages.LABS_UNREADABLE.format(path=path, why=exc.strerror)) from None
    try:
        root = yaml.compose(text, Loader=LOADER)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ConfigError(
            messages.LABS_NOT_YAML.format(path=path, line=line, problem=exc.problem)
        ) from None
    if root is None:
        raise ConfigError(messages.LABS_EMPTY.format(path=path))
    reader = _Reader(path, environ, setting_names(), agents)
    top = _At(path, root, "").mapping(("labs", "pods"))
    labs = tuple(reader.lab(name, at) for name, at in _named(top.get("labs")))
    groups = tuple(reader.group(name, at) for name, at in _named(top.get("pods")))
    if not labs and not groups:
        raise ConfigError(messages.LABS_EMPTY.format(path=path))
    _one_place_each(path, labs, groups)
    return LabsFile(path, labs, groups)


def _named(at: _At | None) -> list[tuple[str, _At]]:
    if at is None:
        return []
    named = list(at.mapping().items())
    for name, item in named:
        if not NAME.match(name):
            raise item.fail(messages.LABS_BAD_NAME.format(name=name))
    return named


class _Reader:
    def __init__(
        self,
        path: Path,
        environ: Mapping[str, str],
        settings: frozenset[str],
        agents: Collection[str] | None = None,
    ) -> None:
        self.path, self.base = path, path.parent
        self.environ, self.settings = environ, settings
        self.agents = agents

    def lab(self, name: str, at: _At) -> Lab:
        fields = at.mapping(LAB_KEYS)
        return Lab(
            name=name,
            source=self._source(at, fields),
            line=at.key_line,
            slack=self._places(fields, "slack", pattern=False),
            matrix=self._places(fields, "matrix", pattern=False),
            approvers=fields["approvers"].who() if "approvers" in fields else (),
            **self._common(fields),
        )

    def group(self, name: str, at: _At) -> PodGroup:
        fields = at.mapping(GROUP_KEYS)
        source = self._pods(at, fields)
        group = PodGroup(
            name=name,
            source=source,
            line=at.key_line,
            slack=self._places(fields, "slack", pattern=True),
            matrix=self._places(fields, "matrix", pattern=True),
            instructors=fields["instructors"].who() if "instructors" in fields else (),
            **self._common(fields),
        )
        students = fields.get("students")
        if students is None:
            return group
        pods = []
        for pod, who in students.mapping().items():
            if matched(group.pattern, pod) is None:
                said = messages.LABS_STUDENTS_POD.format(pod=pod, pattern=group.pattern)
                raise who.fail(said)
            pods.append((pod, who.who()))
        return replace(group, students=tuple(pods))

    def _common(self, fields: dict[str, _At]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if "owners" in fields:
            found["owners"] = fields["owners"].file(self.base)
        if "requesters" in fields:
            found["requesters"] = fields["requesters"].who()
        if "credentials" in fields:
            found["credentials"] = self._credentials(fields["credentials"])
        if "limits" in fields:
            limits = fields["limits"].mapping(tuple(LIMITS))
            found["limits"] = tuple((k, v.number(LIMITS[k])) for k, v in limits.items())
        if "device_types" in fields:
            rules = fields["device_types"].mapping()
            found["device_types"] = tuple((glob, at.text()) for glob, at in rules.items())
        if "agents" in fields:
            found["agents"] = self._agents(fields["agents"])
        return found

    def _agents(self, at: _At) -> tuple[str, ...]:
        """The agents that may work in the lab (each pod of a group): a list, `[]` for none;
        each one of LABBOT_MCP_AGENTS, else its own line says which are."""
        items = at.node.value if isinstance(at.node, yaml.SequenceNode) else [at.node]
        named = []
        for node in items:
            item = _At(self.path, node, at.what)
            name = item.text()
            if self.agents is not None and name not in self.agents:
                known = ", ".join(sorted(self.agents)) or "none"
                raise item.fail(messages.LABS_UNKNOWN_AGENT.format(agent=name, known=known))
            named.append(name)
        return tuple(dict.fromkeys(named))

    def _credentials(self, at: _At) -> Credentials:
        fields = at.mapping(("username", "password", "secret"))
        return Credentials(
            username=fields["username"].text() if "username" in fields else None,
            password_ref=self._reference(fields.get("password")),
            secret_ref=self._reference(fields.get("secret")),
        )

    def _reference(self, at: _At | None) -> str | None:
        return at.reference(self.environ, self.settings) if at is not None else None

    def _places(self, fields: dict[str, _At], platform: str, *, pattern: bool) -> tuple[str, ...]:
        at = fields.get(platform)
        if at is None:
            return ()
        places = at.texts()
        for place in places:
            if pattern and place.count("*") != 1:
                raise at.fail(messages.LABS_PLACE_PATTERN.format(place=place))
            if not pattern and "*" in place:
                raise at.fail(messages.LABS_PLACE_STAR.format(place=place))
            if platform == "matrix" and not place.startswith(("!", "#")):
                raise at.fail(messages.LABS_MATRIX_ROOM.format(room=place))
        return places

    def _source(self, at: _At, fields: dict[str, _At]) -> Source:
        given = [key for key in SOURCES if key in fields]
        if len(given) != 1:
            raise at.fail(messages.LABS_ONE_SOURCE.format(given=", ".join(given) or "none"))
        key = given[0]
        if key != "gns3":
            return InventorySource(fields[key].file(self.base))
        gns3 = fields["gns3"].mapping(("url", "project", "user", "password"))
        if "url" not in gns3 or "project" not in gns3:
            raise fields["gns3"].fail(messages.LABS_GNS3_NEEDS.format(what="url and project"))
        return GNS3Source(
            url=gns3["url"].text(),
            project=gns3["project"].text(),
            user=gns3["user"].text() if "user" in gns3 else None,
            password_ref=self._reference(gns3.get("password")),
        )

    def _pods(self, at: _At, fields: dict[str, _At]) -> GNS3Pods | ContainerlabPods:
        given = [key for key in ("gns3", "containerlab") if key in fields]
        if len(given) != 1:
            raise at.fail(messages.LABS_ONE_POD_SOURCE.format(given=", ".join(given) or "none"))
        if given[0] == "containerlab":
            clab = fields["containerlab"].mapping(("under", "labs"))
            if "under" not in clab or "labs" not in clab:
                raise fields["containerlab"].fail(
                    messages.LABS_GNS3_NEEDS.format(what="under and labs")
                )
            return ContainerlabPods(clab["under"].file(self.base), _pattern(clab["labs"]))
        gns3 = fields["gns3"].mapping(("url", "projects", "user", "password"))
        if "url" not in gns3 or "projects" not in gns3:
            raise fields["gns3"].fail(messages.LABS_GNS3_NEEDS.format(what="url and projects"))
        return GNS3Pods(
            url=gns3["url"].text(),
            projects=_pattern(gns3["projects"]),
            user=gns3["user"].text() if "user" in gns3 else None,
            password_ref=self._reference(gns3.get("password")),
        )


def _pattern(at: _At) -> str:
    pattern = at.text()
    if pattern.count("*") != 1:
        raise at.fail(messages.LABS_PLACE_PATTERN.format(place=pattern))
    return pattern


def _one_place_each(path: Path, labs: tuple[Lab, ...], groups: tuple[PodGroup, ...]) -> None:
    """A channel or room answers for one lab: two labs naming one place is refused."""
    seen: dict[str, str] = {}
    for lab in labs:
        for place in (*lab.slack, *lab.matrix):
            if place in seen:
                said = messages.LABS_PLACE_TAKEN.format(
                    place=place, lab=lab.name, other=seen[place]
                )
                raise ConfigError(
                    messages.LABS_FILE_LINE.format(
                        path=path, line=lab.line, what=f"labs.{lab.name}", problem=said
                    )
                )
            seen[place] = lab.name
    names = [lab.name for lab in labs] + [group.name for group in groups]
    for name in names:
        if names.count(name) > 1:
            raise ConfigError(messages.LABS_NAME_TWICE.format(path=path, name=name))

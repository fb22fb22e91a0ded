"""The shape of a Nornir hosts file, checked before Nornir reads it, so a broken file is one line
naming the file and the line: not YAML, not a mapping of hosts (a list), a host that is not a
mapping. Nornir would answer `'list' object has no attribute 'items'` at the first request."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from base.errors import InventoryError

EXAMPLE = "R1: {hostname: 10.0.0.1, platform: cisco_ios}"


def host_lines(path: Path) -> dict[str, int]:
    """Each host's line in the file (1-based), or InventoryError naming what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InventoryError(f"LABBOT_INVENTORY: no such file {str(path)!r}") from None
    except OSError as exc:
        raise InventoryError(
            f"LABBOT_INVENTORY: cannot read {str(path)!r}: {exc.strerror}"
        ) from None
    try:
        hosts = YAML(typ="rt").load(text)
    except MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise InventoryError(f"{path} line {line}: not YAML: {exc.problem}") from None
    except YAMLError as exc:
        raise InventoryError(f"{path}: not YAML: {exc}") from None
    if not isinstance(hosts, CommentedMap):
        found = _shape(hosts)
        raise InventoryError(
            f"{path}: hosts must be a mapping of device names to their settings "
            f"(found {found}), e.g. `{EXAMPLE}`"
        )
    lines = {str(name): hosts.lc.key(name)[0] + 1 for name in hosts}
    for name, host in hosts.items():
        if host is not None and not isinstance(host, dict):
            raise InventoryError(
                f"{path} line {lines[str(name)]}: host {name} must be a mapping "
                f"(hostname:, platform:, …), e.g. `{EXAMPLE}`"
            )
    return lines


def _shape(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return "a list"
    return "a single value"

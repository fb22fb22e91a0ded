"""The shape of a Nornir hosts file, checked before Nornir reads it, so a broken file is one line
naming the file and the line: not YAML, not a mapping of hosts (a list), a host that is not a
mapping. Nornir would answer `'list' object has no attribute 'items'` at the first request."""

from __future__ import annotations

from pathlib import Path

import yaml

from base.errors import InventoryError

EXAMPLE = "R1: {hostname: 10.0.0.1, platform: cisco_ios}"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"
# libyaml's composer: ruamel's round-trip loader took ~1 s (10 ms a host) for labsim's files
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
        hosts = yaml.compose(text, Loader=LOADER)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise InventoryError(f"{path} line {line}: not YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise InventoryError(f"{path}: not YAML: {exc}") from None
    if not isinstance(hosts, yaml.MappingNode):
        raise InventoryError(
            f"{path}: hosts must be a mapping of device names to their settings "
            f"(found {_shape(hosts)}), e.g. `{EXAMPLE}`"
        )
    lines: dict[str, int] = {}
    for name, host in hosts.value:
        if name.tag == MERGE_TAG:
            continue
        lines[str(name.value)] = name.start_mark.line + 1
        if not isinstance(host, yaml.MappingNode) and host.tag != NULL_TAG:
            raise InventoryError(
                f"{path} line {lines[str(name.value)]}: host {name.value} must be a mapping "
                f"(hostname:, platform:, …), e.g. `{EXAMPLE}`"
            )
    return lines


def _shape(node: yaml.Node | None) -> str:
    if node is None or node.tag == NULL_TAG:
        return "nothing"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "a single value"

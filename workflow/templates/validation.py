"""Parameter validation against a template's schema: types, addresses, VLANs, AS numbers, lists
and objects, defaults; the schema itself; and the lab facts a template reads, checked the same
way. Errors are human-readable (fed back to the planner on retry); [] means valid.

Scalar strings are refused when they hold control characters, line or paragraph separators
(they would inject extra commands) or Jinja delimiters (`{{`, `{%`, `{#`): params are data and
are never rendered again, but no device configuration needs them and refusing them keeps a
value from ever turning into template code if it is copied into a template later. Facts come
from the lab (node, port and interface names): a device whose facts hold such a string is not
offered at all.
"""

from __future__ import annotations

import copy
import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any

from workflow.denylist.matching import control_character
from workflow.model import DeviceFacts, ParamSpec, Topology
from workflow.templates.facts import lab_facts
from workflow.templates.filters import netmask
from workflow.templates.rendering import FACTS

__all__ = ["facts_errors", "refuse_unsafe_facts", "validate_params"]

MAX_STRING = 1024
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
UNNUMBERED_INTERFACES = frozenset({"lo"})  # Linux's (and so FRR's) loopback
_INTERFACE = re.compile(r"[A-Za-z][A-Za-z0-9._:/-]{0,63}")
_RESERVED = {"range", "dict", "namespace", "loop", "self", "true", "false", "none"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


class _Invalid(ValueError):
    """A value that does not fit its spec; the message completes "param 'x': ..."."""


def _string(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Invalid(f"expected text, got {type(value).__name__}")
    text = str(value)
    if (ch := control_character(text)) is not None:
        raise _Invalid(f"{text!r} contains a line break or control character (U+{ord(ch):04X})")
    if any(mark in text for mark in ("{{", "{%", "{#")):
        raise _Invalid(f"{text!r} contains Jinja delimiters, which values may not hold")
    if len(text) > MAX_STRING:
        raise _Invalid(f"is {len(text)} characters long; the limit is {MAX_STRING}")
    return text


def text_problem(text: str) -> str | None:
    """Why `text` may not be printed into a configuration (line breaks, control characters,
    Jinja delimiters, length), or None when it may."""
    try:
        _string(text)
    except _Invalid as exc:
        return str(exc)
    return None


def _integer(value: Any) -> int:
    if isinstance(value, bool):
        raise _Invalid(f"expected a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,20}", value.strip()):
        return int(value)
    raise _Invalid(f"expected a whole number, got {value!r}")


def _in_range(value: Any, low: int, high: int, what: str) -> int:
    number = _integer(value)
    if not low <= number <= high:
        raise _Invalid(f"{number} is not {what} ({low}-{high})")
    return number


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().casefold()
    if word in _TRUE | _FALSE:
        return word in _TRUE
    raise _Invalid(f"expected true or false, got {value!r}")


def _address(version: int | None) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        try:
            address = ipaddress.ip_address(_string(value).strip())
        except ValueError:
            raise _Invalid(f"{value!r} is not an IP address") from None
        if version and address.version != version:
            raise _Invalid(f"{value!r} is not an IPv{version} address")
        return str(address)

    return parse


def _ip_interface(value: Any) -> str:
    text = _string(value).strip()
    if "/" not in text:
        raise _Invalid(f"{text!r} needs a prefix length, e.g. {text}/24")
    try:
        return str(ipaddress.ip_interface(text))
    except ValueError:
        raise _Invalid(f"{text!r} is not an address with prefix (10.0.0.1/24)") from None


def _ipv4_network(value: Any) -> str:
    text = _string(value).strip()
    try:
        return str(ipaddress.IPv4Network(text))
    except ValueError:
        try:
            loose = ipaddress.IPv4Network(text, strict=False)
        except ValueError:
            raise _Invalid(f"{text!r} is not an IPv4 network (10.0.0.0/24)") from None
        raise _Invalid(f"{text!r} has host bits set; did you mean {loose}?") from None


def _mask(value: Any) -> str:
    text = _string(value).strip()
    try:
        mask = netmask(text) if text.lstrip("/").isdigit() else netmask(f"0.0.0.0/{text}")
    except ValueError:
        raise _Invalid(f"{text!r} is not a netmask (255.255.255.0 or 24)") from None
    return mask


def _asn(value: Any) -> int:
    text = str(value).strip()
    if isinstance(value, str) and re.fullmatch(r"\d{1,5}\.\d{1,5}", text):  # asdot 1.10
        high, low = (int(part) for part in text.split("."))
        if high > 65535 or low > 65535:
            raise _Invalid(f"{text!r} is not an AS number in asdot form")
        value = high * 65536 + low
    return _in_range(value, 1, 4294967295, "an AS number")


def _interface(value: Any) -> str:
    text = _string(value).strip()
    numbered = any(ch.isdigit() for ch in text) or text in UNNUMBERED_INTERFACES
    if not _INTERFACE.fullmatch(text) or not numbered:
        raise _Invalid(f"{text!r} is not an interface name (e.g. GigabitEthernet0/1, ge-0/0/0)")
    return text


_SCALARS: dict[str, Callable[[Any], Any]] = {
    "str": _string,
    "int": _integer,
    "bool": _boolean,
    "ip": _address(None),
    "ipv4": _address(4),
    "ipv6": _address(6),
    "ip_interface": _ip_interface,
    "ipv4_network": _ipv4_network,
    "mask": _mask,
    "vlan": lambda value: _in_range(value, 1, 4094, "a VLAN id"),
    "asn": _asn,
    "interface": _interface,
}


def _bounds(spec: ParamSpec, value: Any, size: int) -> None:
    low, high = spec.get("min"), spec.get("max")
    noun = "items" if spec["type"] == "list" else "characters" if spec["type"] == "str" else ""
    if low is not None and size < low:
        raise _Invalid(f"{value!r} is below the minimum {low} {noun}".rstrip())
    if high is not None and size > high:
        raise _Invalid(f"{value!r} is above the maximum {high} {noun}".rstrip())


def _value(spec: ParamSpec, value: Any, path: str, errors: list[str]) -> Any:
    """The normalized value, or None after appending an error for `path`."""
    try:
        if spec["type"] == "list":
            return _list(spec, value, path, errors)
        parse = _SCALARS.get(spec["type"])
        if parse is None:
            raise _Invalid(f"the schema type {spec['type']!r} is unknown ({', '.join(_SCALARS)})")
        normalized = parse(value)
        if spec["type"] in ("int", "str"):
            _bounds(spec, value, normalized if spec["type"] == "int" else len(normalized))
        return normalized
    except _Invalid as exc:
        errors.append(f"param '{path}': {exc}")
        return None


def _list(spec: ParamSpec, value: Any, path: str, errors: list[str]) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise _Invalid(f"expected a list, got {type(value).__name__}")
    _bounds(spec, value, len(value))
    if "fields" in spec:
        result = []
        for index, entry in enumerate(value):
            if not isinstance(entry, Mapping):
                errors.append(
                    f"param '{path}[{index}]': expected an object with {list(spec['fields'])}"
                )
                continue
            result.append(_object(spec["fields"], entry, f"{path}[{index}].", errors))
        return result
    item_spec = spec.get("items", ParamSpec(type="str"))
    return [
        _value(item_spec, entry, f"{path}[{index}]", errors) for index, entry in enumerate(value)
    ]


def _object(
    schema: Mapping[str, ParamSpec], params: Mapping[str, Any], prefix: str, errors: list[str]
) -> dict[str, Any]:
    normalized: dict[str, Any] = {}
    for name in params:
        if name not in schema:
            known = ", ".join(schema) or "none"
            errors.append(f"param '{prefix}{name}' is not in the schema (known: {known})")
    for name, spec in schema.items():
        if name in params and params[name] is not None:
            normalized[name] = _value(spec, params[name], prefix + name, errors)
        elif "default" in spec:  # checked like a value: a default is printed like one
            default = copy.deepcopy(spec["default"])
            path = f"{prefix}{name} (default)"
            normalized[name] = None if default is None else _value(spec, default, path, errors)
        elif spec.get("required", True):
            errors.append(
                f"param '{prefix}{name}' is required ({spec.get('description', spec['type'])})"
            )
    return normalized


def validate_params(
    schema: Mapping[str, ParamSpec], params: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """(params normalized with defaults applied, errors). Optional params without a default
    are left out, so templates test them with `is defined`."""
    errors: list[str] = []
    normalized = _object(schema, params, "", errors)
    return normalized, errors


def schema_errors(schema: Mapping[str, ParamSpec]) -> list[str]:
    """What is wrong with a params schema: reserved or unusable names, unknown types."""
    errors = []
    for name, spec in schema.items():
        if name == FACTS:
            errors.append(
                f"params_schema: {FACTS!r} is reserved for the device's facts, which every "
                f"template can read ({FACTS}.name, {FACTS}.interfaces, ...); rename the parameter"
            )
        elif not _IDENTIFIER.fullmatch(name) or name.casefold() in _RESERVED:
            errors.append(f"params_schema: {name!r} is not usable as a variable name; rename it")
        elif spec.get("type") == "list" and "items" not in spec and "fields" not in spec:
            errors.append(f"params_schema: list '{name}' needs `items` or `fields`")
        elif spec.get("type") != "list" and spec.get("type") not in _SCALARS:
            known = ", ".join([*_SCALARS, "list"])
            errors.append(
                f"params_schema: '{name}' has the unknown type {spec.get('type')!r} ({known})"
            )
    return errors


def facts_errors(facts: Any, path: str = "") -> list[str]:
    """Every string in a device's `facts` that could not be printed safely into a config."""
    if isinstance(facts, str):
        problem = text_problem(facts)
        return [f"{path}: {problem}"] if problem else []
    if isinstance(facts, Mapping):
        items = [(f"{path}.{key}" if path else str(key), value) for key, value in facts.items()]
    elif isinstance(facts, list):
        items = [(f"{path}[{index}]", value) for index, value in enumerate(facts)]
    else:
        return []
    return [error for sub_path, value in items for error in facts_errors(value, sub_path)]


def refuse_unsafe_facts(topology: Topology) -> Topology:
    """The topology with every device whose template facts are unsafe marked unusable, saying
    why: a name with a line break would print as a second command."""
    devices = dict(topology["devices"])
    for name, facts in lab_facts(topology).items():
        errors = facts_errors(facts, "facts")
        if errors:
            refused = DeviceFacts(**devices[name])
            refused["error"] = (
                f"its lab facts cannot be used in a configuration ({'; '.join(errors)}); "
                "rename it in the lab"
            )
            devices[name] = refused
    return Topology(**{**topology, "devices": devices})

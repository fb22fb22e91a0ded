"""A proposal's own content validated: a template (syntax, variables against its schema, example,
post-checks) and parameter values against the schema. Both return human-readable errors (fed
back to the LLM on retry); [] means valid. What the gates show is built in workflow/previews.py.

Scalar strings are refused when they hold control characters, line or paragraph separators
(they would inject extra commands) or Jinja delimiters (`{{`, `{%`, `{#`): params are data and
are never rendered again, but no device configuration needs them and refusing them keeps a
value from ever turning into template code if it is copied into a template later.
"""

from __future__ import annotations

import copy
import ipaddress
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from base.errors import TemplateError
from workflow import template_facts
from workflow.filters import netmask
from workflow.model import ParamSpec, TemplateProposal
from workflow.postchecks.spec import post_check_errors
from workflow.rendering import FACTS, compile_template, render, template_variables
from workflow.safety import DenyList
from workflow.template_facts import TemplateFacts

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
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
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


def _schema_errors(schema: Mapping[str, ParamSpec]) -> list[str]:
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


def _family_errors(
    family: str,
    source: str,
    schema: Mapping[str, ParamSpec],
    example: Mapping[str, Any] | None,
    facts: TemplateFacts,
    deny: DenyList,
) -> tuple[set[str] | None, list[str]]:
    """(variables the template reads, or None when it does not compile; errors)."""
    where = f"{family} template"
    try:
        compile_template(source)
        used = template_variables(source)
    except TemplateError as exc:
        return None, [f"{where}: {exc}"]
    errors = [
        f"{where} uses '{name}', which is not in params_schema (add it there or remove it)"
        for name in sorted(used - set(schema) - {FACTS})
    ]
    if errors or example is None:  # example params invalid: rendering would only add noise
        return used, errors
    try:
        lines = render(source, example, facts=facts)
    except TemplateError as exc:
        return used, [f"{where} fails on example_params: {exc}"]
    if not lines:
        errors.append(f"{where} renders no lines with example_params")
    errors.extend(f"{where} example: {violation}" for violation in deny.check(lines, family))
    return used, errors


def validate_template(
    proposal: TemplateProposal,
    *,
    deny: DenyList | None = None,
    example_facts: Mapping[str, TemplateFacts] | None = None,
) -> list[str]:
    """Syntax, variables vs params_schema, example rendering and deny-list, per family.

    `facts` is provided, not a parameter: the example renders with `example_facts[family]`
    (a lab device's facts), else with the made-up `template_facts.example_facts(family)`.
    """
    if not proposal.get("templates"):
        return ["the proposal has no template (expected one per device family, e.g. cisco_ios)"]
    schema = proposal["params_schema"]
    errors = _schema_errors(schema)
    example, param_errors = validate_params(schema, proposal.get("example_params", {}))
    errors.extend(f"example_params: {error}" for error in param_errors)
    used_anywhere: set[str] | None = set()
    for family, source in proposal["templates"].items():
        sample = None if param_errors else example
        facts = (example_facts or {}).get(family) or template_facts.example_facts(family)
        used, family_errors = _family_errors(
            family, source, schema, sample, facts, deny or DenyList()
        )
        used_anywhere = None if used is None or used_anywhere is None else used_anywhere | used
        errors.extend(family_errors)
    errors.extend(post_check_errors(proposal.get("post_checks"), schema))
    for name, spec in schema.items():
        required = spec.get("required", True) and "default" not in spec
        if required and used_anywhere is not None and name not in used_anywhere:
            errors.append(
                f"required parameter '{name}' is not used by any template; "
                "use it or make it optional"
            )
    return errors

"""The post-check declaration a template carries (library YAML, saved versions, LLM answers).

```yaml
post_checks:
  timeout: 60                 # seconds all checks may take to pass (default 60, at most 600)
  checks:
    - ospf_neighbors          # on every target: the neighbour on each link between targets Full
    - loopback_routes         # on every target: every other target's loopback network is routed
    - bgp_sessions            # every neighbour in param `neighbors` (its `address`) Established
    - bgp_prefixes            # the `networks` of every BGP peer among the targets received by BGP
    - {kind: routes, param: prefix, protocol: static}   # the device's own `prefix` installed
```

A check is a kind name or a mapping with `kind` and its options: `param` (the parameter holding
what it expects, default per kind; a value or a list, list items may be objects with `address`
or `prefix`) and `protocol` (routes only: `static`, `connected`, `ospf`, `bgp`, `kernel`; absent:
any). Pure functions: parsing a declaration, its errors, and combining several templates' ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args

__all__ = [
    "MAX_TIMEOUT",
    "PostCheck",
    "PostChecks",
    "combine_post_checks",
    "parse_post_checks",
    "post_check_errors",
]

CheckKind = Literal["ospf_neighbors", "loopback_routes", "bgp_sessions", "bgp_prefixes", "routes"]
KINDS: tuple[str, ...] = get_args(CheckKind)
PROTOCOLS = ("static", "connected", "ospf", "bgp", "kernel")
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
MAX_CHECKS = 20

# The parameter a kind reads when the declaration names none (None: it reads the lab, not params).
DEFAULT_PARAM: dict[str, str | None] = {
    "ospf_neighbors": None,
    "loopback_routes": None,
    "bgp_sessions": "neighbors",
    "bgp_prefixes": "networks",
    "routes": None,  # required: which parameter holds the routes
}
_OPTIONS = {"kind", "param", "protocol"}
_KEYS = {"checks", "timeout"}


class PostCheck(TypedDict):
    """One check, normalized: `param` filled in from the kind's default where it has one."""

    kind: CheckKind
    param: NotRequired[str]
    protocol: NotRequired[str]


class PostChecks(TypedDict):
    """A template's post-checks; `timeout` in seconds bounds the wait for all of them."""

    checks: list[PostCheck]
    timeout: float


def parse_post_checks(declared: Any) -> tuple[PostChecks | None, list[str]]:
    """(the normalized declaration or None when there is none, errors). Input as written in YAML
    or answered by an LLM; anything not understood is an error, never dropped."""
    if declared is None or declared == {} or declared == []:
        return None, []
    if isinstance(declared, list):  # the short form: only the checks
        declared = {"checks": declared}
    if not isinstance(declared, Mapping):
        return None, ["post_checks: expected a mapping with `checks` (and `timeout`)"]
    errors = [f"post_checks: unknown key {key!r}" for key in declared if key not in _KEYS]
    timeout, timeout_error = _timeout(declared.get("timeout", DEFAULT_TIMEOUT))
    errors.extend([timeout_error] if timeout_error else [])
    raw = declared.get("checks")
    if not isinstance(raw, list) or not raw:
        return None, [*errors, "post_checks: `checks` must be a non-empty list"]
    if len(raw) > MAX_CHECKS:
        errors.append(f"post_checks: {len(raw)} checks; at most {MAX_CHECKS}")
    checks: list[PostCheck] = []
    for index, entry in enumerate(raw[:MAX_CHECKS]):
        check, check_errors = _check(entry, f"post_checks.checks[{index}]")
        errors.extend(check_errors)
        if check is not None and check not in checks:
            checks.append(check)
    if errors:
        return None, errors
    return PostChecks(checks=checks, timeout=timeout), []


def _timeout(value: Any) -> tuple[float, str | None]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DEFAULT_TIMEOUT, f"post_checks: timeout {value!r} is not a number of seconds"
    if not 1 <= value <= MAX_TIMEOUT:
        return DEFAULT_TIMEOUT, f"post_checks: timeout {value} is not 1 to {MAX_TIMEOUT:g} s"
    return float(value), None


def _check(entry: Any, where: str) -> tuple[PostCheck | None, list[str]]:
    if isinstance(entry, str):
        entry = {"kind": entry}
    if not isinstance(entry, Mapping):
        return None, [f"{where}: expected a kind name or a mapping with `kind`"]
    errors = [f"{where}: unknown option {key!r}" for key in entry if key not in _OPTIONS]
    kind = entry.get("kind")
    if kind not in KINDS:
        return None, [*errors, f"{where}: unknown kind {kind!r} (known: {', '.join(KINDS)})"]
    check = PostCheck(kind=cast(CheckKind, kind))
    param = entry.get("param", DEFAULT_PARAM[kind])
    if param is not None:
        if not isinstance(param, str) or not param.isidentifier():
            errors.append(f"{where}: param {param!r} is not a parameter name")
        check["param"] = str(param)
    elif kind == "routes":
        errors.append(f"{where}: `routes` needs `param`, the parameter holding the prefixes")
    protocol = entry.get("protocol")
    if protocol is not None:
        if kind != "routes" and kind != "loopback_routes":
            errors.append(f"{where}: `protocol` applies to routes and loopback_routes only")
        elif protocol not in PROTOCOLS:
            errors.append(f"{where}: protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        check["protocol"] = str(protocol)
    return check, errors


def post_check_errors(declared: Any, params_schema: Mapping[str, Any]) -> list[str]:
    """The declaration's errors, and every parameter it reads that the schema lacks."""
    checks, errors = parse_post_checks(declared)
    if checks is None:
        return errors
    return [
        f"post_checks: {check['kind']} reads parameter {check['param']!r}, which is not in "
        "params_schema"
        for check in checks["checks"]
        if "param" in check and check["param"] not in params_schema
    ]


def combine_post_checks(parts: Iterable[PostChecks | None]) -> PostChecks | None:
    """Several templates' checks as one: every check once, in order; the longest timeout."""
    declared = [part for part in parts if part]
    if not declared:
        return None
    checks: list[PostCheck] = []
    for part in declared:
        checks.extend(check for check in part["checks"] if check not in checks)
    return PostChecks(checks=checks, timeout=max(part["timeout"] for part in declared))

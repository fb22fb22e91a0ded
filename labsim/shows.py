"""`show` output shared by the vendors: running/startup config, output pipes, routes."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from datetime import UTC, datetime

from labsim.platform import DeviceView


def show_running(device: DeviceView, args: list[str]) -> str:
    """`show running-config [interface X]` with the vendor's header."""
    body = device.running_config()
    if args and "interface".startswith(args[0].lower()) and len(args) > 1:
        name = device.cli.canonical_interface(" ".join(args[1:]))
        block = section_of(body, f"interface {name}")
        if not block:
            return f"% Invalid input: no interface {name}\n"
        body = block + device.cli.rules.footer + "\n"
    return device.cli.show_run_header(device, body) + body


def show_startup(device: DeviceView, args: list[str]) -> str:
    body = device.startup_config()
    return device.cli.show_run_header(device, body) + body


def show_clock(device: DeviceView, args: list[str]) -> str:
    now = datetime.now(UTC)
    return f"*{now:%H:%M:%S}.{now.microsecond // 1000:03d} UTC {now:%a %b %d %Y}\n"


def show_no_neighbours(device: DeviceView, args: list[str]) -> str:
    """`show ip ospf neighbor`: labsim runs no routing protocol, so no neighbour is ever up
    (IOS and EOS print nothing then)."""
    return ""


def section_of(text: str, header: str) -> str:
    """The top-level block whose first line is exactly `header`, with its children."""
    out: list[str] = []
    for block in _blocks(text):
        if block[0] == header:
            out.extend(block)
    return "\n".join(out) + "\n" if out else ""


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith(" ") and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return blocks


def apply_pipe(output: str, pipe: str) -> str | None:
    """Filter `output` through `| include|exclude|begin|section REGEX`; None if unknown."""
    words = pipe.strip().split(None, 1)
    if len(words) != 2:
        return None
    kind, pattern = words[0].lower(), words[1]
    try:
        regex = re.compile(pattern)
    except re.error:
        return None
    filters: dict[str, Callable[[str, re.Pattern[str]], str]] = {
        "include": _include,
        "exclude": _exclude,
        "begin": _begin,
        "section": _section,
    }
    for name, apply in filters.items():
        if name.startswith(kind):
            return apply(output, regex)
    return None


def _include(output: str, regex: re.Pattern[str]) -> str:
    return "".join(line + "\n" for line in output.splitlines() if regex.search(line))


def _exclude(output: str, regex: re.Pattern[str]) -> str:
    return "".join(line + "\n" for line in output.splitlines() if not regex.search(line))


def _begin(output: str, regex: re.Pattern[str]) -> str:
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if regex.search(line)), len(lines))
    return "".join(line + "\n" for line in lines[start:])


def _section(output: str, regex: re.Pattern[str]) -> str:
    """Whole sections whose header matches; otherwise the header with its matching lines."""
    out: list[str] = []
    for block in _blocks(output):
        if regex.search(block[0]):
            out.extend(block)
        else:
            children = [line for line in block[1:] if regex.search(line)]
            if children:
                out.extend([block[0], *children])
    return "".join(line + "\n" for line in out)


Route = tuple[str, ipaddress.IPv4Network, str]  # (code, prefix, "via X" / "directly ...")


def routes(device: DeviceView) -> list[Route]:
    """Connected, local and static routes: what `show ip route` can honestly show."""
    table: list[Route] = []
    for interface in device.interfaces:
        if interface.address is None or not interface.link_up:
            continue
        table.append(("C", interface.address.network, f"is directly connected, {interface.name}"))
        if interface.address.network.prefixlen < 32:
            host = ipaddress.IPv4Network(f"{interface.address.ip}/32")
            table.append(("L", host, f"is directly connected, {interface.name}"))
    for line in device.running_config().splitlines():
        static = _static_route(line)
        if static is not None:
            table.append(static)
    return sorted(table, key=lambda route: (route[1].network_address, route[1].prefixlen))


def _static_route(line: str) -> Route | None:
    words = line.split()
    if words[:2] != ["ip", "route"] or len(words) < 4:
        return None
    try:
        if "/" in words[2]:
            prefix, via = ipaddress.IPv4Network(words[2], strict=False), words[3]
        else:
            prefix = ipaddress.IPv4Network(f"{words[2]}/{words[3]}", strict=False)
            via = words[4] if len(words) > 4 else ""
    except ValueError:
        return None
    return ("S", prefix, f"[1/0] via {via}")

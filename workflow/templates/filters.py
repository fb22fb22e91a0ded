"""Network filters for configuration templates, built on `ipaddress` and `netutils`.

Every filter accepts strings (what params hold) and returns strings or ints, never address
objects, so templates print exactly what a device expects. A value that is not an address raises
ValueError; the renderer turns it into a TemplateError naming the template line.

=================  ========================================  ======================
filter             example                                   result
=================  ========================================  ======================
``netmask``        ``"10.0.0.1/24"|netmask`` or ``24|netmask``  ``255.255.255.0``
``prefixlen``      ``"255.255.255.0"|prefixlen``, ``"10.0.0.1/24"|prefixlen``  ``24``
``wildcard``       ``"10.0.0.0/24"|wildcard`` or ``"255.255.255.0"|wildcard``  ``0.0.0.255``
``hostmask``       same function as ``wildcard`` (ipaddress's name for it)
``network``        ``"10.0.0.1/24"|network``                 ``10.0.0.0``
``host``           ``"10.0.0.1/24"|host``                    ``10.0.0.1``
``broadcast``      ``"10.0.0.1/24"|broadcast``               ``10.0.0.255``
``ip_network``     ``"10.0.0.1/24"|ip_network``              ``10.0.0.0/24``
``to_cidr``        ``"10.0.0.1"|to_cidr("255.255.255.0")``   ``10.0.0.1/24``
``nth_host``       ``"10.0.0.0/24"|nth_host(1)``             ``10.0.0.1``
``ip_version``     ``"2001:db8::1/64"|ip_version``           ``6``
``short_interface````"GigabitEthernet0/1"|short_interface``  ``Gi0/1``
``long_interface`` ``"Gi0/1"|long_interface``                ``GigabitEthernet0/1``
=================  ========================================  ======================
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

# netutils is imported by the filters that use it (at the first rendering, not at start): its
# interface and protocol tables take ~0.35 s to load.

IPInterface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def _interface(value: Any) -> IPInterface:
    """Parse "10.0.0.1/24", "10.0.0.1/255.255.255.0" or a bare address (as a host route)."""
    try:
        return ipaddress.ip_interface(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address or prefix") from None


def _is_prefix_length(value: Any) -> bool:
    return isinstance(value, int) or (
        isinstance(value, str) and value.strip().lstrip("/").isdigit()
    )


def netmask(value: Any) -> str:
    """Dotted IPv4 mask of a prefix length (24, "/24") or of an address with prefix."""
    if _is_prefix_length(value):
        length = int(str(value).strip().lstrip("/"))
        if not 0 <= length <= 32:
            raise ValueError(f"{value!r} is not an IPv4 prefix length (0-32)")
        from netutils.ip import cidr_to_netmask

        return str(cidr_to_netmask(length))
    return str(_interface(value).netmask)


def prefixlen(value: Any) -> int:
    """Prefix length of a dotted mask ("255.255.255.0") or of an address with prefix."""
    text = str(value).strip()
    if "/" not in text and text.count(".") == 3:
        from netutils.ip import netmask_to_cidr

        try:
            return int(netmask_to_cidr(text))
        except ValueError:
            raise ValueError(f"{value!r} is not a contiguous netmask") from None
    return _interface(text).network.prefixlen


def wildcard(value: Any) -> str:
    """Wildcard (inverse) mask: of a dotted mask, a prefix length or an address with prefix."""
    from netutils.ip import netmask_to_wildcardmask

    text = str(value).strip()
    if "/" not in text and text.count(".") == 3:
        return str(netmask_to_wildcardmask(netmask(prefixlen(text))))
    if _is_prefix_length(value):
        return str(netmask_to_wildcardmask(netmask(value)))
    return str(_interface(text).hostmask)


def network(value: Any) -> str:
    """Network address of "10.0.0.1/24" -> "10.0.0.0"."""
    return str(_interface(value).network.network_address)


def host(value: Any) -> str:
    """Host address of "10.0.0.1/24" -> "10.0.0.1"."""
    return str(_interface(value).ip)


def broadcast(value: Any) -> str:
    return str(_interface(value).network.broadcast_address)


def ip_network(value: Any) -> str:
    """Network in CIDR form: "10.0.0.1/24" -> "10.0.0.0/24"."""
    return str(_interface(value).network)


def to_cidr(ip: Any, mask: Any) -> str:
    """Address and mask (dotted or prefix length) -> "10.0.0.1/24"."""
    length = prefixlen(mask) if not _is_prefix_length(mask) else int(str(mask).lstrip("/"))
    return str(_interface(f"{str(ip).strip()}/{length}"))


def nth_host(value: Any, index: int) -> str:
    """The index-th address of a network: "10.0.0.0/24"|nth_host(1) -> "10.0.0.1"."""
    net = _interface(value).network
    if not -net.num_addresses <= int(index) < net.num_addresses:
        raise ValueError(f"{net} has no address number {index}")
    return str(net[int(index)])


def ip_version(value: Any) -> int:
    return _interface(value).version


def short_interface(value: Any) -> str:
    from netutils.interface import abbreviated_interface_name

    return str(abbreviated_interface_name(str(value)))


def long_interface(value: Any) -> str:
    from netutils.interface import canonical_interface_name

    return str(canonical_interface_name(str(value)))


NETWORK_FILTERS: dict[str, Callable[..., Any]] = {
    "netmask": netmask,
    "prefixlen": prefixlen,
    "wildcard": wildcard,
    "hostmask": wildcard,
    "network": network,
    "host": host,
    "broadcast": broadcast,
    "ip_network": ip_network,
    "to_cidr": to_cidr,
    "nth_host": nth_host,
    "ip_version": ip_version,
    "short_interface": short_interface,
    "long_interface": long_interface,
}

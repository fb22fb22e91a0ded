"""The registry of simulated vendors, by netmiko family name."""

from __future__ import annotations

from labsim import eos, ios
from labsim.platform import Platform

__all__ = ["platform_by_name"]

PLATFORMS: dict[str, Platform] = {ios.PLATFORM.name: ios.PLATFORM, eos.PLATFORM.name: eos.PLATFORM}


def platform_by_name(name: str) -> Platform:
    """The CLI of a netmiko device type (`cisco_ios`, `arista_eos_telnet`, ...)."""
    family = name.removesuffix("_telnet").removesuffix("_ssh")
    if family not in PLATFORMS:
        raise ValueError(f"unknown platform {name!r}: use one of {sorted(PLATFORMS)}")
    return PLATFORMS[family]

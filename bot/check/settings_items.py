"""The settings part of the doctor: they load (else one line naming the bad one), and every
LABBOT_* name in the environment or `.env` is one labbot knows (a typo does nothing)."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from dotenv import dotenv_values

from base.errors import ConfigError
from bot import messages
from bot.check.findings import Finding, fail, ok
from bot.settings import Settings, load_settings

AREA = "settings"
# names read outside the settings object
OTHER_NAMES = frozenset({"LABBOT_CONFIG"})


def known_names() -> frozenset[str]:
    aliases = (field.validation_alias for field in Settings.model_fields.values())
    return frozenset(alias for alias in aliases if isinstance(alias, str)) | OTHER_NAMES


def given_names() -> dict[str, str]:
    """LABBOT_* names set, each with where: the environment or the .env file."""
    names = {name: "environment" for name in os.environ if name.startswith("LABBOT_")}
    env_file = Path(".env")
    if env_file.is_file():
        for name in dotenv_values(env_file):
            if name.startswith("LABBOT_"):
                names.setdefault(name, ".env")
    return names


def unknown_names() -> list[Finding]:
    known = known_names()
    findings = []
    for name, where in sorted(given_names().items()):
        if name in known:
            continue
        guess = difflib.get_close_matches(name, known, n=1)
        fix = (
            messages.UNKNOWN_SETTING_FIX.format(guess=guess[0])
            if guess
            else messages.UNKNOWN_SETTING_NO_GUESS
        )
        said = messages.UNKNOWN_SETTING.format(name=f"{name} ({where})")
        findings.append(fail(AREA, said, fix))
    return findings


def settings_findings() -> tuple[Settings | None, list[Finding]]:
    """The settings (None when they do not load) and what was found about them."""
    try:
        settings = load_settings()
    except ConfigError as exc:
        broken = fail(AREA, messages.SETTINGS_BROKEN.format(line=exc), messages.SETTINGS_BROKEN_FIX)
        return None, [broken, *unknown_names()]
    sources = [s for s in ("LABBOT_CONFIG", ".env") if _used(s)]
    said = messages.SETTINGS_READ.format(
        sources=messages.SETTINGS_SOURCES.format(sources=", ".join(["environment", *sources]))
    )
    return settings, [ok(AREA, said), *unknown_names()]


def _used(source: str) -> bool:
    if source == "LABBOT_CONFIG":
        return bool(os.environ.get("LABBOT_CONFIG"))
    return Path(".env").is_file()

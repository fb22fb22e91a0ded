"""Secrets in configuration text are shown as `****` in chat: login passwords, enable secrets,
SNMP communities, routing-protocol and AAA keys. The hashes behind the buttons cover the real
lines; only what is displayed is masked."""

from __future__ import annotations

import re

MASK = "****"
# Each pattern's last group is the secret; what precedes it stays readable.
_SECRETS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"(\b(?:password|secret)(?:\s+[0-9])?\s+)(\S+)",
        r"(\bsnmp-server\s+community\s+)(\S+)",
        r"(\b(?:key-string|authentication-key)(?:\s+[0-9])?\s+)(\S+)",
        r"(\bmessage-digest-key\s+\d+\s+md5(?:\s+[0-9])?\s+)(\S+)",
        r"(\b(?:tacacs-server|radius-server)\s+(?:.*\s)?key(?:\s+[0-9])?\s+)(\S+)",
        r"((?<![\w-])key\s+[0-9]\s+)(\S+)",
    )
)


_FREE_TEXT = re.compile(r"^[-+ ]*\s*(description|remark|alias)\b", re.IGNORECASE)


def mask_secrets(text: str) -> str:
    return "\n".join(_mask_line(line) for line in text.split("\n"))


def _mask_line(line: str) -> str:
    if _FREE_TEXT.match(line):  # people's words, not secrets
        return line
    for pattern in _SECRETS:
        line = pattern.sub(lambda match: match.group(1) + MASK, line)
    return line

"""Slack's signed requests: the v0 signature over the raw bytes, five minutes fresh, then a body
Slack sends; one rule for the ack front and the bot's own server alike."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping
from typing import Any

from adapters.slack import inbound

SIGNATURE_MAX_AGE = 300  # seconds; Slack's own rule (bolt applies it too)


class Refused(Exception):
    """A request that is not Slack's: `status` and `text` answer it; `what` it was and why it
    was refused (the exception's text) go to the log."""

    def __init__(self, status: int, text: str, what: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.text, self.what = status, text, what


def valid_signature(secret: str, raw: bytes, timestamp: str, signature: str) -> bool:
    """Slack's v0 request signature over the raw bytes (whatever they are), five minutes fresh."""
    try:
        age = abs(time.time() - int(timestamp))
    except ValueError:
        return False
    base = b"v0:" + timestamp.encode() + b":" + raw
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return age <= SIGNATURE_MAX_AGE and hmac.compare_digest(expected, signature)


def signed_body(
    secret: str, raw: bytes, headers: Mapping[str, str], content_type: str
) -> dict[str, Any]:
    """The body of a request Slack signed, as bolt will read it; `Refused` (401 for a bad or
    stale signature, 400 for a signed body Slack would not send) before anything reads it."""
    stamp = headers.get("X-Slack-Request-Timestamp", "")
    if not valid_signature(secret, raw, stamp, headers.get("X-Slack-Signature", "")):
        raise Refused(401, "invalid signature", "a Slack request", "bad or stale signature")
    try:
        return inbound.parse_delivery(raw.decode("utf-8"), content_type)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise Refused(400, "malformed request", "a signed Slack request", str(exc)) from None

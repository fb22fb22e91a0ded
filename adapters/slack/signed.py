"""Slack's signed requests: the v0 signature over the raw bytes, five minutes fresh, then a body
Slack sends; one rule for the ack front and the bot's own server alike. Imports nothing of bolt:
the ack front starts with it."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

SIGNATURE_MAX_AGE = 300  # seconds; Slack's own rule (bolt applies it too)
JSON = "application/json"


class Refused(Exception):
    """A request that is not Slack's: `status` and `text` answer it; `what` it was and why it
    was refused (the exception's text) go to the log."""

    def __init__(self, status: int, text: str, what: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.text, self.what = status, text, what


def signature(secret: str, raw: bytes, timestamp: str) -> str:
    """Slack's v0 signature of `raw` sent at `timestamp`."""
    base = b"v0:" + timestamp.encode() + b":" + raw
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(secret: str, raw: bytes) -> dict[str, str]:
    """The headers of `raw` signed now, as Slack signs a request."""
    stamp = str(int(time.time()))
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature(secret, raw, stamp)}


def valid_signature(secret: str, raw: bytes, timestamp: str, signed: str) -> bool:
    """Slack's v0 request signature over the raw bytes (whatever they are), five minutes fresh."""
    try:
        age = abs(time.time() - int(timestamp))
    except ValueError:
        return False
    return age <= SIGNATURE_MAX_AGE and hmac.compare_digest(
        signature(secret, raw, timestamp), signed
    )


def signed_body(
    secret: str, raw: bytes, headers: Mapping[str, str], content_type: str
) -> dict[str, Any]:
    """The body of a request Slack signed, as bolt will read it; `Refused` (401 for a bad or
    stale signature, 400 for a signed body Slack would not send) before anything reads it."""
    stamp = headers.get("X-Slack-Request-Timestamp", "")
    if not valid_signature(secret, raw, stamp, headers.get("X-Slack-Signature", "")):
        raise Refused(401, "invalid signature", "a Slack request", "bad or stale signature")
    try:
        return parse_delivery(raw, content_type)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise Refused(400, "malformed request", "a signed Slack request", str(exc)) from None


# The fields bolt and the listeners read, with the JSON types Slack sends them as.
_SHAPES: dict[str, tuple[type, ...]] = {
    "type": (str,),
    "event": (dict,),
    "event_id": (str,),
    "actions": (list,),
    "view": (dict,),
    "container": (dict,),
    "message": (dict,),
    "state": (dict,),
    "user": (dict, str),
    "team": (dict, str, type(None)),
    "enterprise": (dict, str, type(None)),
    "channel": (dict, str),
    "authorizations": (list,),
    "command": (str,),
    "text": (str,),
    "trigger_id": (str,),
    "response_url": (str,),
    "user_id": (str,),
    "channel_id": (str,),
}
_NESTED = {"actions": dict, "authorizations": dict}  # list fields: their items
_IDS = ("user", "team", "enterprise", "channel", "event")  # objects whose id/type are strings


def parse_delivery(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """A signed request body as bolt will read it; ValueError when it is not one Slack sends
    (bad JSON, a form without a JSON payload, anything but an object, a field of a wrong type)."""
    try:
        body = _parsed(raw, content_type)
    except (ValueError, TypeError) as exc:  # json.JSONDecodeError, UnicodeDecodeError are
        raise ValueError(f"unreadable body ({type(exc).__name__})") from None
    if not isinstance(body, dict):
        raise ValueError(f"body is a JSON {type(body).__name__}, not an object")
    _check_shape(body)
    return body


def _check_shape(body: Mapping[str, Any]) -> None:
    for name, types in _SHAPES.items():
        if name in body and not isinstance(body[name], types):
            raise ValueError(f"field {name!r} is a {type(body[name]).__name__}")
    for name, item_type in _NESTED.items():
        if any(not isinstance(item, item_type) for item in body.get(name) or ()):
            raise ValueError(f"an item of {name!r} is not an object")
    for name in _IDS:
        value = body.get(name)
        if isinstance(value, dict) and any(
            not isinstance(value.get(key, ""), str) for key in ("id", "type")
        ):
            raise ValueError(f"field {name!r} has an id or type that is not a string")


def _parsed(raw: bytes, content_type: str | None) -> Any:
    """The body as bolt's `parse_body` reads it: JSON, a form whose `payload` field is JSON (an
    interaction), or a plain form (a slash command)."""
    if not raw:
        return {}
    if content_type == JSON or raw.startswith(b"{"):
        return json.loads(raw.decode("utf-8"))
    form = dict(form_fields(raw))
    return json.loads(form["payload"]) if "payload" in form else form


def form_fields(raw: bytes) -> Iterator[tuple[str, str]]:
    """The fields of an application/x-www-form-urlencoded body, as `urllib.parse.parse_qsl`
    reads them (blank values kept), but percent-decoded in C: each %XX becomes \\xXX for the
    unicode_escape codec, backslashes escaped first. The ack front decodes every click's ~10 kB
    payload; parse_qsl's loop over each escape took ~0.5 ms of it, this ~0.1 ms. A malformed
    escape or text that is not UTF-8 is refused (ValueError), never passed on as it came."""
    for pair in raw.split(b"&"):
        if pair:
            name, _, value = pair.partition(b"=")
            yield _unquote_plus(name), _unquote_plus(value)


def _unquote_plus(value: bytes) -> str:
    escaped = value.replace(b"\\", b"\\\\").replace(b"%", b"\\x").replace(b"+", b" ")
    return escaped.decode("unicode_escape").encode("latin-1").decode("utf-8")

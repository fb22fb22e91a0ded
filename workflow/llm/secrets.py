"""No secret value reaches an LLM: every request to the endpoint is masked on the wire.

`MaskedRequests` is an httpx transport: each JSON request that carries `messages` (a chat
completion, whichever step sent it: templates, parameters, a diagnosis and its reads, an error
given back) has every message text masked by `LLMSecrets.hide`: the per-platform rules of
base.secret_rules (any platform: a request mixes them), the words people typed by
base.secrets_in_requests (user messages), and every value masked before, wherever it stands
now, plus the credentials labbot holds (the values masked are kept in memory only, the latest
`REMEMBERED`).

- `reveal`: a planner's answer gets the real value back where the model used the token of a
  value typed in the request it answers (a community typed in the request becomes the
  template's default, as typed), or held by the change's own earlier proposal (a community an
  earlier Modify typed, restated after the next one). Only those: a token anyone may see (a
  device's secret in a read, a value someone else typed, shown masked in their thread or the
  audit, a saved template's default) is no key to its value, so `describe Gi0/0 as
  ‹secret:…›` keeps the token (and is never pushed);
- `hide`: a diagnosis's answer is masked before it is posted, the values the model read
  included, in case it quotes one it paraphrased.
"""

from __future__ import annotations

import json
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import httpx

from base.masking import TOKEN, SecretMask
from base.secrets_in_requests import SAID_SECRET, value_span

__all__ = ["LLMSecrets"]

REMEMBERED = 2_000  # values kept for `hide`, the latest
MIN_LITERAL_CHARS = 4  # a shorter value is masked where a rule finds it, not as a bare word


class LLMSecrets:
    """Masks what is sent to the LLM (remembering the values it masked) and gives an answer
    back the values its request typed."""

    def __init__(self, mask: SecretMask, credentials: Iterable[str] = ()) -> None:
        self.mask = mask
        self._pinned = {mask.token(value): value for value in credentials if value}
        self._seen: OrderedDict[str, None] = OrderedDict()  # the values masked so far

    def __repr__(self) -> str:
        return f"LLMSecrets({len(self._seen)} values)"

    def hide(self, text: str, *, said: bool = False) -> str:
        """`text` with no secret value: by the rules (and, `said`, as people type them) and
        every value known, wherever it stands."""
        text, found = self.mask.config_values(text)
        if said:
            found |= _said_values(text)
            text = self.mask.said(text)
        for value in found:
            self._remember(value)
        known = [*self._pinned.values(), *self._seen]
        return self.mask.literals(text, (v for v in known if len(v) >= MIN_LITERAL_CHARS))

    def reveal(self, value: Any, said: str, earlier: Any = None) -> Any:
        """An answer (strings, lists, dicts) with the token of each value typed in `said` (the
        request and feedback it answers) or held by `earlier` (the change's own earlier
        proposal, whose values an earlier Modify typed) replaced by that value; every other
        token kept."""
        typed = self._typed(said, earlier)
        return _replaced(value, lambda m: typed.get(m.group(0), m.group(0)))

    def _typed(self, said: str, earlier: Any) -> dict[str, str]:
        """token -> value of the values `said` holds (as `hide` finds them in people's words)
        and `earlier` holds (its strings and the secrets in them), but a credential labbot
        holds or a token two of them share (never given back)."""
        _, found = self.mask.config_values(said)
        for text in _strings(earlier):
            found |= {text, *self.mask.config_values(text)[1]}
        pairs = {(self.mask.token(value), value) for value in found | _said_values(said)}
        shared = Counter(token for token, _ in pairs)
        return {t: v for t, v in pairs if shared[t] == 1 and t not in self._pinned}

    def _remember(self, value: str) -> None:
        self._seen[value] = None
        self._seen.move_to_end(value)
        while len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)

    def request_body(self, body: bytes) -> bytes:
        """A chat request's JSON with its messages masked; any other body as masked text."""
        try:
            payload = json.loads(body)
        except ValueError:
            return self.hide(body.decode(errors="replace")).encode()
        if not isinstance(payload, dict):
            return self.hide(body.decode(errors="replace")).encode()
        messages = payload.get("messages") or []
        for _ in range(2):  # a value found in a later message is hidden in the earlier ones too
            for message in messages:
                self._hide_message(message)
        return json.dumps(payload).encode()

    def _hide_message(self, message: dict[str, Any]) -> None:
        said = message.get("role") == "user"
        content = message.get("content")
        if isinstance(content, str):
            message["content"] = self.hide(content, said=said)
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = self.hide(part["text"], said=said)
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if isinstance(function.get("arguments"), str):
                function["arguments"] = self.hide(function["arguments"])


def _replaced(value: Any, token_value: Callable[[re.Match[str]], str]) -> Any:
    if isinstance(value, str):
        return TOKEN.sub(token_value, value)
    if isinstance(value, list):
        return [_replaced(item, token_value) for item in value]
    if isinstance(value, dict):
        return {key: _replaced(item, token_value) for key, item in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)


def _said_values(text: str) -> set[str]:
    return {text[start:end] for start, end in map(value_span, SAID_SECRET.finditer(text))}


class MaskedRequests(httpx.AsyncBaseTransport):
    """An httpx transport around another: every request body masked (`LLMSecrets`)."""

    def __init__(self, secrets: LLMSecrets, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._secrets = secrets
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        if body:
            headers = [(k, v) for k, v in request.headers.items() if k.lower() != "content-length"]
            request = httpx.Request(
                request.method,
                request.url,
                headers=headers,
                content=self._secrets.request_body(body),
                extensions=request.extensions,
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

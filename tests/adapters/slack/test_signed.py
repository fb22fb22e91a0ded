"""Slack's signed bodies read as bolt reads them: forms decoded as urllib's parse_qsl decodes
them, and what cannot be read is refused."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from adapters.slack.signed import Refused, form_fields, signed_body, signed_headers
from tests.adapters.slack.payloads import fixture
from tests.fakes.slack_api import SIGNING_SECRET

FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    "fields",
    [
        {"payload": json.dumps(fixture("block_actions"))},
        {"payload": json.dumps({"text": "ünïcödé 💥 \\ % + & = \n \\x41 %41"}, ensure_ascii=False)},
        {"command": "/labbot", "text": "configure ospf on all routers", "empty": ""},
        {"a b": "c+d", "%": "100%"},
    ],
)
def test_forms_read_as_parse_qsl_reads_them(fields: dict[str, str]) -> None:
    raw = urllib.parse.urlencode(fields)
    assert dict(form_fields(raw.encode())) == dict(
        urllib.parse.parse_qsl(raw, keep_blank_values=True)
    )
    assert dict(form_fields(raw.encode())) == fields


@pytest.mark.parametrize(
    "raw", [b"payload=%zz", b"payload=%4", b"payload=%ff", b"payload=%7B%22a%22%3A", b"payload=[1]"]
)
def test_a_signed_form_that_cannot_be_read_is_refused(raw: bytes) -> None:
    with pytest.raises(Refused) as refused:
        signed_body(SIGNING_SECRET, raw, signed_headers(SIGNING_SECRET, raw), FORM)
    assert refused.value.status == 400


def test_a_signed_click_is_read() -> None:
    click = fixture("block_actions")
    raw = urllib.parse.urlencode({"payload": json.dumps(click)}).encode()
    assert signed_body(SIGNING_SECRET, raw, signed_headers(SIGNING_SECRET, raw), FORM) == click

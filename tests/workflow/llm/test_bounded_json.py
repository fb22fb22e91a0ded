"""What the LLM's wire reads is bounded: strings inside an answer's JSON are cut with a note as
they stream (valid JSON, the rest of the answer kept, however the pieces fall), a template part
cut so is refused in one line, a plain answer's text is cut, and one streamed event of
megabytes is not read on: the answer ends there as cut off."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from base.errors import PlanningError
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.workflow.llm.test_planner import OSPF_ANSWER
from tests.workflow.llm.test_servers import chat, planner, propose
from workflow.llm.bounded_json import ANSWER_CHARS, STRING_CHARS, StringCaps
from workflow.llm.capped_text import capped, cut_note
from workflow.llm.wire import ArgumentsAsText

ANSWER = {
    "name": "ntp",
    "description": "NTP " + "y" * 50 + '\n\u00e9"q',  # 58 characters, escapes among them
    "templates": {"cisco_ios": "ntp server {{ server }}"},
    "n": [1, 2.5, None, True],
}


@pytest.mark.parametrize("step", [1, 2, 3, 5, 7, 64, 10_000])
def test_strings_past_the_limit_are_cut_with_a_note_however_the_pieces_fall(step: int) -> None:
    written = json.dumps(ANSWER)
    caps = StringCaps(24)
    read = "".join(caps.feed(written[at : at + step]) for at in range(0, len(written), step))
    answer = json.loads(read + caps.finish())
    assert answer["description"] == "NTP " + "y" * 20 + cut_note(34)
    assert answer["templates"] == ANSWER["templates"] and answer["n"] == ANSWER["n"]
    assert caps.cut


def test_prose_left_inside_quotes_still_gets_its_note_at_the_end() -> None:
    caps = StringCaps(5)
    assert caps.feed('He said "abcdefgh') + caps.finish() == 'He said "abcde' + cut_note(3)


def test_a_text_cut_twice_says_how_much_was_left_out_in_all() -> None:
    on_the_wire = "x" * 16_000 + cut_note(9_984_000)
    assert capped(on_the_wire) == "x" * 4_000 + cut_note(9_996_000)
    assert capped("short" + cut_note(7)) == "short" + cut_note(7)


async def test_a_template_part_cut_on_the_wire_is_refused_in_one_line() -> None:
    long = {**OSPF_ANSWER, "templates": {"cisco_ios": "! " + "z" * 20_000 + "\nrouter ospf 1"}}
    with OpenAIStandIn() as server:
        server.script(structured(long))
        with pytest.raises(PlanningError) as refused:
            await propose(server, planner(server))
    assert str(refused.value) == (
        f"the LLM wrote a template part longer than {STRING_CHARS:,} characters, cut there; "
        "ask for a smaller change"
    )


async def test_a_plain_answer_of_10_mb_reaches_the_client_cut() -> None:
    with OpenAIStandIn() as server:
        server.script(text("R1 lacks the route. " + "y" * 10_000_000))
        said = await chat(server).ainvoke("why?")
    assert said.text == ("R1 lacks the route. " + "y" * 10_000_000)[:ANSWER_CHARS] + cut_note(
        10_000_020 - ANSWER_CHARS
    )


async def test_one_streamed_event_of_megabytes_is_not_read_on() -> None:
    sent = []

    async def giant_event() -> AsyncIterator[bytes]:
        yield b'data: {"choices": [{"index": 0, "delta": {"content": "'
        for _ in range(160):  # 10 MB, never ending its line
            sent.append(65_536)
            yield b"y" * 65_536

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=giant_event()
        )

    wire = ArgumentsAsText(httpx.MockTransport(server))
    request = httpx.Request("POST", "http://llm.test/v1/chat/completions", json={})
    response = await wire.handle_async_request(request)
    read = b"".join([data async for data in response.aiter_bytes()])
    events = [json.loads(line[6:]) for line in read.split(b"\n") if line[6:].startswith(b"{")]
    assert [e["choices"][0]["finish_reason"] for e in events] == ["length"]
    assert read.endswith(b"data: [DONE]\n\n")
    assert sum(sent) < 2 * ANSWER_CHARS  # it stopped reading soon after the bound

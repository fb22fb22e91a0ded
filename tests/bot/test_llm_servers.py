"""A change asked in chat reaches the template gate with each LLM server a lab runs (stand-ins
of Ollama, vLLM, llama.cpp, reasoning models and a server without usage; the real ChatOpenAI
client, the real graph and saver, the simulated lab): the gate says whether its token figure
was measured or estimated; the model's progress edits "Working on it"; a timeout ends the
change in one line with no gate open, and the audit says so."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.chat import Message, ThreadRef
from bot.audit.table import entry_summary
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_reads import bot_on_lab
from tests.fakes import llm_profiles as servers
from tests.fakes.llm_profiles import ServerProfile
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.support.masks import MASK
from tests.workflow.test_graph_llm import OSPF_TEMPLATE

REQUEST = "configure OSPF area 0 on R1 and R2"
OSPF = OSPF_TEMPLATE


def llm_settings(server: OpenAIStandIn, **more: object) -> dict[str, object]:
    return {
        "openai_api_key": SecretStr("sk-lab"),
        "openai_base_url": server.base_url,
        "llm_model": server.profile.name,
        **more,
    }


@pytest.mark.parametrize("profile", servers.PROFILES, ids=lambda p: p.name)
async def test_a_change_reaches_the_template_gate_with_each_server(
    tmp_path: Path, profile: ServerProfile
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn(profile=profile) as server:
        # a server that ignores `stream` answers the first request unread; asked again plainly
        server.script(*[structured(OSPF)] * (1 if profile.streams else 2))
        async with bot_on_lab(tmp_path, chat, **llm_settings(server)) as (_, bot):
            await bot.service.handle(ask(REQUEST))
            pending = await bot.workflow.pending_gate(THREAD.key)
    _, gate = chat.last_gate()
    assert "Step 1 of 2" in gate.text and "router ospf {{ pid }}" in str(gate.blocks)
    assert "Template `ospf-area0` (llm)" in gate.text  # the model's own, never the library's
    how = "estimated: the endpoint reports no usage" if not profile.usage else "measured"
    assert "LLM tokens for this template: " in gate.text and how in gate.text, gate.text
    assert pending is not None and pending.gate == "template"


async def test_an_answer_with_no_object_after_the_thinking_ends_the_change_saying_so(
    tmp_path: Path,
) -> None:
    """A pre-filled `<think>` (vLLM without a reasoning parser): the thinking drafts the
    built-in {"name": "ospf"}, the answer after `</think>` has no object. The change ends
    naming that; no library template is proposed in the model's stead."""
    chat = RecordingAdapter()
    with OpenAIStandIn(profile=servers.VLLM_R1_PREFILLED) as server:
        unread = text(f"{servers.THINKING}\n</think>\n\nWhich OSPF process id do you want?")
        server.script(*[unread] * 7)  # tools twice, json_schema twice, JSON in the text 3 times
        async with bot_on_lab(tmp_path, chat, **llm_settings(server)) as (_, bot):
            await bot.service.handle(ask(REQUEST))
            pending = await bot.workflow.pending_gate(THREAD.key)
        assert server.pending_replies == 0
    assert pending is None and not any(m.buttons for m in chat.messages())
    said = [t for t in chat.texts() if "did not match the expected format after 3 tries" in t]
    assert len(said) == 1 and "no JSON object in the answer" in said[0], chat.texts()


async def test_the_working_message_shows_the_model_writing(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(structured(OSPF, delay_seconds=4.5))  # streamed over 4.5 s
        async with bot_on_lab(tmp_path, chat, **llm_settings(server)) as (_, bot):
            await bot.service.handle(ask(REQUEST))
    working_id = next(mid for mid, _, m in chat.posts if m.text.startswith("Working on it"))
    edits = [m.text for mid, m in chat.updates if mid == working_id]
    assert 1 <= len(edits) <= 3, edits  # at most one edit every 2 s
    assert "(the model has been writing for " in edits[-1] and "tokens so far)" in edits[-1]
    assert "Step 1 of 2" in chat.last_gate()[1].text


class DownChat(RecordingAdapter):
    """A chat whose edits take 2.5 s and then fail (at its rate limit, then down)."""

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await asyncio.sleep(2.5)
        raise RuntimeError("the chat is down")


async def test_a_slow_failing_chat_edit_is_neither_the_models_time_nor_its_fault(
    tmp_path: Path,
) -> None:
    """The model streams for 4.5 s of its 6; each edit of "Working on it" takes 2.5 s and
    fails. Awaited in the stream, they ran the model past its timeout (or ended the planning on
    the chat's error); beside it, the gate comes."""
    chat = DownChat()
    with OpenAIStandIn(profile=servers.OLLAMA) as server:
        server.script(structured(OSPF, delay_seconds=4.5))
        settings = llm_settings(server, llm_timeout_seconds=6)
        async with bot_on_lab(tmp_path, chat, **settings) as (_, bot):
            await bot.service.handle(ask(REQUEST))
    assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()
    assert not any("did not answer within" in t for t in chat.texts()), chat.texts()


async def test_a_modified_template_shows_the_model_writing_in_a_new_message(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn(profile=servers.VLLM_TOOL_PARSER) as server:
        server.script(structured(OSPF), structured(OSPF, delay_seconds=3))
        async with bot_on_lab(tmp_path, chat, **llm_settings(server)) as (_, bot):
            await bot.service.handle(ask(REQUEST))
            await bot.service.handle(click(chat, "bob", "modify", feedback="use process 2"))
    writing = [m.text for _, _, m in chat.posts if m.text.startswith("Working on it… (")]
    assert len(writing) == 1 and "(the model has been writing for " in writing[0], chat.texts()
    assert "The reviewer asks: use process 2" in server.requests[1].messages[-1]["content"]
    assert "Step 1 of 2" in chat.last_gate()[1].text


async def test_a_timeout_ends_the_change_in_one_line_with_nothing_open(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn(profile=servers.VLLM_TOOL_PARSER) as server:
        server.script(structured(OSPF, delay_seconds=3))
        settings = llm_settings(server, llm_timeout_seconds=0.5)
        async with bot_on_lab(tmp_path, chat, **settings) as (_, bot):
            await bot.service.handle(ask(REQUEST))
            pending = await bot.workflow.pending_gate(THREAD.key)
            change = await bot.audit.latest_change_for_thread(THREAD.key)
            assert change is not None
            entries = await bot.audit.entries(change_id=change.change_id)
    line = (
        f"the LLM endpoint at {server.base_url} did not answer within 0.5 s; "
        "check it is up or raise LABBOT_LLM_TIMEOUT"
    )
    assert pending is None and not any(m.buttons for m in chat.messages())
    said = [t for t in chat.texts() if line in t]
    assert len(said) == 1 and "\n" not in said[0], chat.texts()
    assert any(
        e.kind == "event" and "failed" in entry_summary(e, MASK) and line in entry_summary(e, MASK)
        for e in entries
    ), [entry_summary(e, MASK) for e in entries]

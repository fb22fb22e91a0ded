"""A secret's token is no key to its value: a secret someone else typed (shown to the team as its
token only) never comes back in clear, wherever a request and the model put its token. Through
the real decision service, graph and simulated lab, with the OpenAI stand-in as the LLM: bob
asks for an SNMP community (its value reaches the LLM as a token), alice, who saw the token,
asks for it as an interface description; nothing the bot posts holds the community (her
template keeps the token, and a line carrying one is refused). A line the checks refuse is
told with its secret masked too."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from adapters.chat import Message
from tests.bot.chat import RecordingAdapter, ask
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.security.replay import attacked_bot, attacked_lab, thread
from tests.security.tally import attempt

COMMUNITY = "Bob-Comm-77"  # typed by bob; alice sees its token only


def shown(message: Message) -> str:
    blocks = [block.text for block in (*message.blocks, *message.attachments)]
    return "\n".join([message.text, message.footer, *blocks])


def on_the_stand_in(llm: OpenAIStandIn) -> dict[str, object]:
    """The bot's settings for the OpenAI stand-in as its LLM, one planning attempt."""
    return {
        "openai_api_key": SecretStr("sk-standin"),
        "openai_base_url": llm.base_url,
        "plan_attempts": 1,
    }


def described_as(token: str) -> dict[str, object]:
    """The LLM's template: an interface description, the token as its example and in its
    own description (it was asked for that text)."""
    return {
        "name": "describe",
        "description": f"Sets the description of GigabitEthernet0/0 to {token}",
        "templates": {"cisco_ios": "interface GigabitEthernet0/0\n description {{ text }}\n"},
        "params_schema": {"text": "str"},
        "example_params": {"text": token},
        "targets": ["R1"],
        "sections": ["interface * / description *"],
    }


def community_of(token: str) -> dict[str, object]:
    """The LLM's template for bob's request: it saw the typed community as its token."""
    return {
        "name": "snmp_ro",
        "templates": {"cisco_ios": "snmp-server community {{ community }} RO\n"},
        "params_schema": {"community": f"str={token}"},
        "targets": ["R1"],
        "sections": ["snmp-server community *"],
    }


async def test_a_secret_s_token_asked_for_by_someone_else_is_never_shown_in_clear(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        settings = on_the_stand_in(llm)
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
            token = bot.service.reporter.mask.token(COMMUNITY)
            llm.script(structured(community_of(token)), structured(described_as(token)))
            bobs = f"configure snmp community {COMMUNITY} RO on R1"
            await bot.service.handle(ask(bobs, "bob", thread("bob")))
            request = f"describe GigabitEthernet0/0 as {token} on R1"
            await bot.service.handle(ask(request, "alice", thread("alice")))
    posted = "\n".join(shown(message) for message in chat.messages())
    assert f"snmp-server community {token} RO" in posted  # bob's template step, masked
    assert f"`description {token}` is refused" in posted  # alice's: the token kept, never sent
    attempt("secrets: someone else's secret asked for by its token", COMMUNITY not in posted)
    assert COMMUNITY not in posted, posted


async def test_a_refused_line_holding_a_typed_secret_is_told_masked(tmp_path: Path) -> None:
    """The LLM's template writes the community the request typed into a line the deny-list
    refuses (`… RW`): the refusal names the line, the community as its token."""
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        settings = on_the_stand_in(llm)
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
            token = bot.service.reporter.mask.token(COMMUNITY)
            writable = {
                **community_of(token),
                "templates": {"cisco_ios": "snmp-server community {{ community }} RW\n"},
            }
            llm.script(structured(writable))
            asked = f"configure snmp community {COMMUNITY} RW on R1"
            await bot.service.handle(ask(asked, "bob", thread("bob")))
    posted = "\n".join(shown(message) for message in chat.messages())
    assert f"snmp-server community {token} RW" in posted, posted
    assert COMMUNITY not in posted, posted

"""Neutral messages -> Matrix event contents."""

from __future__ import annotations

import json

import pytest

from adapters.chat import Actor, Button, CodeBlock, Message, button_value, parse_reply
from adapters.matrix import outbound
from tests.support.gates import gate_message

VALUE = button_value("int-1", "c" * 64)
BUTTONS = (
    Button("Execute", "approve", "primary", VALUE),
    Button("Modify", "modify", "default", VALUE),
    Button("Cancel", "cancel", "danger", VALUE),
)


def test_text_and_code_blocks_become_html_with_a_plain_fallback() -> None:
    message = Message(
        "*Step 2* for `chg-1` <b>not html</b>\n_expires soon_ in snake_case_name",
        blocks=(CodeBlock("ip address 10.0.0.1 255.0.0.0\n<&>", "text", "R1 configuration"),),
    )
    [content] = outbound.message_contents(message)
    assert content["msgtype"] == "m.notice"
    assert content["format"] == "org.matrix.custom.html"
    assert content["formatted_body"] == (
        "<p><strong>Step 2</strong> for <code>chg-1</code> &lt;b&gt;not html&lt;/b&gt;<br>"
        "<em>expires soon</em> in snake_case_name</p>"
        "<p><strong>R1 configuration</strong></p>"
        '<pre><code class="language-text">ip address 10.0.0.1 255.0.0.0\n&lt;&amp;&gt;</code></pre>'
    )
    assert content["body"] == (
        "Step 2 for `chg-1` <b>not html</b>\nexpires soon in snake_case_name\n"
        "R1 configuration\n```text\nip address 10.0.0.1 255.0.0.0\n<&>\n```"
    )


def test_a_gate_says_how_to_decide_and_carries_its_button_value() -> None:
    [content] = outbound.message_contents(Message("Step 2", buttons=BUTTONS))
    assert "React ✅ Execute · ✏️ Modify · ❌ Cancel" in content["body"]
    assert "`execute`, `modify: <what to change>`, `cancel`" in content["body"]
    assert content["org.labbot.gate"] == {
        "value": VALUE,
        "choices": {"approve": "Execute", "modify": "Modify", "cancel": "Cancel"},
    }


@pytest.mark.parametrize(
    ("level", "icon"), [("info", ""), ("success", "✅ "), ("warning", "⚠️ "), ("error", "❌ ")]
)
def test_the_level_shows_as_an_icon(level: str, icon: str) -> None:
    [content] = outbound.message_contents(Message("done", level=level))  # type: ignore[arg-type]
    assert content["body"] == f"{icon}done"


def test_a_message_for_one_person_mentions_them() -> None:
    bob = Actor("@bob:hs", "Bob <b>")
    [content] = outbound.message_contents(Message("Refused: not an approver."), mention=bob)
    assert content["body"] == "Bob <b>: Refused: not an approver."
    assert content["formatted_body"].startswith(
        '<p><a href="https://matrix.to/#/@bob:hs">Bob &lt;b&gt;</a>: Refused'
    )
    assert content["m.mentions"] == {"user_ids": ["@bob:hs"]}


def test_the_thread_relation_has_the_reply_fallback() -> None:
    content = outbound.in_thread({"body": "x"}, "$root", "$last")
    assert content["m.relates_to"] == {
        "rel_type": "m.thread",
        "event_id": "$root",
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": "$last"},
    }


def test_long_output_is_split_across_events_each_under_the_size_limit() -> None:
    output = "\n".join(f"{n:05d} " + "y" * 70 for n in range(2000))
    huge_line = "z" * 40_000
    message = Message(
        "result",
        blocks=(CodeBlock("short", "text", "R1"),),
        attachments=(CodeBlock(output, "text", "R2 output"), CodeBlock(huge_line, "text")),
        footer="✓ 2 of 2",
    )
    contents = outbound.message_contents(message)
    assert len(contents) >= 10
    assert all(len(json.dumps(c).encode()) < 60_000 for c in contents)
    assert contents[0]["body"].startswith("result\n✓ 2 of 2")
    assert not any(c["body"].startswith("result") for c in contents[1:])
    bodies = "".join(c["body"] for c in contents)
    assert all(f"{n:05d} " in bodies for n in (0, 1234, 1999))
    assert bodies.count("z") == 40_000
    assert "R2 output (1/" in bodies and "output (3/3)" in bodies


def test_an_edit_replaces_the_first_event_and_drops_the_buttons() -> None:
    decided = Message("Step 2", footer="✅ Approved by Bob at 12:00")
    content = outbound.edit_content("$gate", decided)
    assert content["m.relates_to"] == {"rel_type": "m.replace", "event_id": "$gate"}
    assert content["body"].startswith("* Step 2")
    new = content["m.new_content"]
    assert new["body"] == "Step 2\n✅ Approved by Bob at 12:00"
    assert "org.labbot.gate" not in new and "React" not in new["body"]
    footer_only = outbound.edit_content("$gate", Message("", footer="❌ Cancelled by Bob"))
    assert footer_only["m.new_content"]["body"] == "❌ Cancelled by Bob"


def test_a_closed_gate_keeps_what_it_showed_with_the_footer_for_the_hint() -> None:
    value = button_value("int-1", "c" * 64)
    gate = gate_message("*Step 2* @room", CodeBlock("router ospf 1", "text", "R1"), value)
    sent = outbound.in_thread(outbound.message_contents(gate)[0], "$root", "$root")
    closed = outbound.closed_content(sent, "✅ Approved by Bob at 12:00")
    # as if the gate were rendered again with the footer for its buttons, without rendering it
    decided = Message(gate.text, blocks=gate.blocks, footer="✅ Approved by Bob at 12:00")
    assert closed == outbound.message_contents(decided)[0]
    assert "org.labbot.gate" not in closed and "m.relates_to" not in closed
    assert "React" not in closed["body"] and "router ospf 1" in closed["formatted_body"]
    # read back from a homeserver that sorts the keys of what it stores: the same edit
    marker = sent["org.labbot.gate"]
    read_back = {
        **sent,
        "org.labbot.gate": {**marker, "choices": dict(sorted(marker["choices"].items()))},
    }
    assert outbound.closed_content(read_back, "✅ Approved by Bob at 12:00") == closed


def test_reactions_annotate_the_gate() -> None:
    assert outbound.reaction_content("$gate", "✅") == {
        "m.relates_to": {"rel_type": "m.annotation", "event_id": "$gate", "key": "✅"}
    }


@pytest.mark.parametrize("word", ["@room", "@Room", "@here", "@channel", "@everyone"])
def test_room_wide_mentions_in_echoed_text_notify_nobody(word: str) -> None:
    echoed = Message(
        f"Request by alice: configure ospf {word} now",
        blocks=(CodeBlock(f"description {word}"),),
        footer=f"feedback: {word}",
    )
    for content in [
        *outbound.message_contents(echoed),
        outbound.edit_content("$gate", echoed),
        outbound.notice_content(f"hello {word}"),
    ]:
        shown = json.dumps(content, ensure_ascii=False)
        # still readable, but the keyword clients match (`@room`) is broken by a word joiner
        assert word not in shown and f"@{outbound.WORD_JOINER}{word[1:]}" in shown
        # `m.mentions` present and naming nobody: no room ping, older keyword rules off
        assert content["m.mentions"] == {}


def test_an_address_with_at_is_left_alone() -> None:
    [content] = outbound.message_contents(Message("mail ops@roomservice.example"))
    assert content["body"] == "mail ops@roomservice.example"


def test_a_targets_gate_is_confirmed_by_reaction_or_by_typing_confirm() -> None:
    confirm = (
        Button("Confirm", "approve", "primary", VALUE),
        Button("Cancel", "cancel", "danger", VALUE),
    )
    [content] = outbound.message_contents(Message("Confirm the devices", buttons=confirm))
    assert (
        "React ✅ Confirm · ❌ Cancel — or reply in this thread `confirm`, `cancel`."
        in (content["body"])
    )
    assert parse_reply("confirm") == ("approve", None)
    assert "`execute`" in outbound.buttons_hint(BUTTONS)  # the push gate's word, as before

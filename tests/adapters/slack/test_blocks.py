import pytest

from adapters.chat import Button, CodeBlock, Message, button_value
from adapters.slack.blocks import MAX_BLOCKS, SECTION_LIMIT, escape, render, split_text

VALUE = button_value("int-1", "a" * 64)


def _texts(blocks: list[dict]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]


@pytest.mark.parametrize(
    ("raw", "keep", "escaped"),
    [
        ("a < b && c > d", (), "a &lt; b &amp;&amp; c &gt; d"),
        ("Approved by <@U2> at 12:00", ("<@U2>",), "Approved by <@U2> at 12:00"),
        ("<#C1|netlab> and <!here>", ("<#C1|netlab>",), "<#C1|netlab> and &lt;!here&gt;"),
        ("<script>", (), "&lt;script&gt;"),
        # mentions nobody placed on purpose (a person's or an LLM's text) notify nobody
        ("hi <!channel> <!here> <@U9>", (), "hi &lt;!channel&gt; &lt;!here&gt; &lt;@U9&gt;"),
        ("by <@U2>: ping <@U9>", ("<@U2>",), "by <@U2>: ping &lt;@U9&gt;"),
    ],
)
def test_escape_keeps_only_the_mentions_the_bot_placed(
    raw: str, keep: tuple[str, ...], escaped: str
) -> None:
    assert escape(raw, keep) == escaped


@pytest.mark.parametrize(
    ("text", "limit", "chunks"),
    [
        ("one\ntwo\nthree", 8, ["one\ntwo", "three"]),
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),
        ("ab&amp;cd", 6, ["ab", "&amp;c", "d"]),  # never cut inside an entity
        ("", 10, [""]),
    ],
)
def test_split_text(text: str, limit: int, chunks: list[str]) -> None:
    assert split_text(text, limit) == chunks


def test_gate_message_has_code_and_buttons_with_confirm_on_execute() -> None:
    message = Message(
        "*Step 2 of 2*",
        blocks=(CodeBlock("router ospf 1\n network 10.0.0.0 0.0.0.255 area 0", "text", "R1"),),
        buttons=(
            Button("Execute", "approve", "primary", VALUE, confirm="Push this configuration now?"),
            Button("Modify", "modify", "default", VALUE),
            Button("Cancel", "cancel", "danger", VALUE),
        ),
    )
    rendered = render(message)
    texts = _texts(rendered.blocks)
    assert texts[0] == "*Step 2 of 2*"
    assert texts[1].startswith("*R1*\n```\nrouter ospf 1\n")
    actions = rendered.blocks[-1]
    assert actions["type"] == "actions"
    execute, modify, cancel = actions["elements"]
    assert (execute["action_id"], execute["style"], execute["value"]) == (
        "labbot:approve",
        "primary",
        VALUE,
    )
    assert execute["confirm"]["text"]["text"] == "Push this configuration now?"
    assert "style" not in modify and modify["action_id"] == "labbot:modify"
    assert cancel["style"] == "danger" and "confirm" not in cancel
    assert rendered.files == ()


def test_decided_message_shows_footer_instead_of_buttons() -> None:
    rendered = render(Message("template", footer="✅ Approved by bob at 12:00 UTC"))
    assert [b["type"] for b in rendered.blocks] == ["section", "context"]
    assert rendered.blocks[-1]["elements"][0]["text"] == "✅ Approved by bob at 12:00 UTC"


def test_long_code_is_split_under_the_section_limit() -> None:
    config = "\n".join(f"interface Gi0/{n}\n description <uplink & core>" for n in range(400))
    rendered = render(Message("big", blocks=(CodeBlock(config, "text", "R1"),)))
    sections = _texts(rendered.blocks)[1:]
    assert len(sections) > 3
    assert all(len(text) <= SECTION_LIMIT for text in sections)
    assert all(text.count("```") == 2 for text in sections)
    joined = "\n".join(t.split("```\n", 1)[1].rsplit("\n```", 1)[0] for t in sections)
    assert joined == escape(config)


def test_too_many_blocks_spill_into_files_but_keep_the_buttons() -> None:
    code = tuple(CodeBlock(f"hostname R{n}", "text", f"R{n} configuration") for n in range(80))
    button = Button("Approve", "approve", "primary", VALUE)
    rendered = render(Message("many devices", blocks=code, buttons=(button,)))
    assert len(rendered.blocks) == MAX_BLOCKS
    assert rendered.blocks[-1]["type"] == "actions"
    assert "attached as files below" in rendered.blocks[-2]["elements"][0]["text"]
    shown = len(_texts(rendered.blocks)) - 1
    assert [f.title for f in rendered.files] == [f"R{n} configuration" for n in range(shown, 80)]
    assert rendered.files[0].filename == f"r{shown}-configuration.txt"


def test_attachments_become_files_and_an_update_does_not_upload_again() -> None:
    output = "x" * 50_000
    message = Message("pushed", attachments=(CodeBlock(output, "text", "R1 output"),))
    posted = render(message)
    assert [(f.filename, f.content) for f in posted.files] == [("r1-output.txt", output)]
    assert "R1 output" in posted.blocks[-1]["elements"][0]["text"]
    assert render(message, uploading=False).files == ()


def test_a_message_without_text_still_has_a_notification_text() -> None:
    assert render(Message("", footer="✅ Approved by bob")).text == "✅ Approved by bob"


def test_level_and_fallback_text() -> None:
    rendered = render(Message("x" * 5000, level="error"))
    assert rendered.text.startswith(":x: ") and len(rendered.text) == 3000
    assert all(len(t) <= SECTION_LIMIT for t in _texts(rendered.blocks))

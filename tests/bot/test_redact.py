"""Known credentials are scrubbed from everything the bot says and logs; secret values in
configuration are masked in every code block it posts and every log line."""

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from adapters.chat import CodeBlock, Message, ThreadRef
from base.masking import SecretMask
from bot.views.redact import ScrubbedAdapter, Scrubber, ScrubLogs
from tests.bot.chat import RecordingAdapter

MASK = SecretMask(b"test key")


SCRUB = Scrubber.of(
    [
        ("LABBOT_DEVICE_PASSWORD", "Lab-Pass-9931"),
        ("OPENAI_API_KEY", "sk-abcdef123456"),
        ("LABBOT_DEVICE_SECRET", "enable"),
        ("GNS3_PASSWORD", "c1sc0"),
    ]
)


def test_known_credentials_are_scrubbed_wherever_they_appear() -> None:
    assert SCRUB("HTTP 401: bad key sk-abcdef123456") == "HTTP 401: bad key ‹OPENAI_API_KEY›"
    assert SCRUB("url=https://x/?k=sk-abcdef123456&") == "url=https://x/?k=‹OPENAI_API_KEY›&"
    message = Message(
        "login Lab-Pass-9931", blocks=(CodeBlock("x Lab-Pass-9931", title="t"),), footer="f"
    )
    scrubbed = SCRUB.message(message)
    assert "Lab-Pass-9931" not in repr(scrubbed)
    assert scrubbed.blocks[0].text == "x ‹LABBOT_DEVICE_PASSWORD›"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("login failed: password c1sc0", "login failed: password ‹GNS3_PASSWORD›"),
        ("401 {'pw': 'c1sc0'}", "401 {'pw': '‹GNS3_PASSWORD›'}"),
        ("c1sc0", "‹GNS3_PASSWORD›"),
        ("secret=enable.", "secret=‹LABBOT_DEVICE_SECRET›."),
        # part of a longer word stays: the short value is only hidden as a token of its own
        ("c1sc0lab and xc1sc0", "c1sc0lab and xc1sc0"),
        ("enabled, enable_x, reenable", "enabled, enable_x, reenable"),
    ],
)
def test_short_credentials_are_scrubbed_at_token_boundaries(text: str, shown: str) -> None:
    assert SCRUB(text) == shown


def test_a_value_containing_a_shorter_one_is_replaced_whole() -> None:
    scrub = Scrubber.of([("LABBOT_DEVICE_SECRET", "pass"), ("GNS3_PASSWORD", "pass word")])
    assert scrub("x pass word y pass") == "x ‹GNS3_PASSWORD› y ‹LABBOT_DEVICE_SECRET›"


@contextmanager
def log_written(*filters: ScrubLogs) -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger whose lines pass handlers in turn, each with one filter; what the last wrote."""
    logger = logging.getLogger(f"tests.redact.{len(filters)}")
    handlers = [logging.StreamHandler(io.StringIO()) for _ in filters]
    for handler, scrub in zip(handlers, filters, strict=True):
        handler.addFilter(scrub)
        logger.addHandler(handler)
    try:
        yield logger, handlers[-1].stream
    finally:
        for handler in handlers:
            logger.removeHandler(handler)


def test_log_lines_and_tracebacks_are_scrubbed() -> None:
    with log_written(ScrubLogs(SCRUB, MASK)) as (logger, written):
        try:
            raise RuntimeError("connect with Lab-Pass-9931 failed")
        except RuntimeError:
            logger.exception("device %s said %s", "R1", "sk-abcdef123456")
        logger.warning("R1 refused %r", "snmp-server community Log-Comm-1 RO")
    text = written.getvalue()
    assert "Lab-Pass-9931" not in text and "sk-abcdef123456" not in text
    assert "‹OPENAI_API_KEY›" in text and "connect with ‹LABBOT_DEVICE_PASSWORD› failed" in text
    assert "Log-Comm-1" not in text and MASK.token("Log-Comm-1") in text


def test_a_traceback_is_scrubbed_by_each_handler_s_filter() -> None:
    """A record reaches each handler in turn: the first filter turns the traceback into text,
    the next one (knowing other credentials) still scrubs that text; so does a stack."""
    first = ScrubLogs(Scrubber.of([("OPENAI_API_KEY", "sk-abcdef123456")]), MASK)
    with log_written(first, ScrubLogs(SCRUB, MASK)) as (logger, written):
        try:
            raise RuntimeError("connect with Lab-Pass-9931 failed")
        except RuntimeError:
            logger.exception("device %s", "R1")
        logger.warning("again with Lab-Pass-9931", stack_info=True)
    text = written.getvalue()
    assert "Lab-Pass-9931" not in text
    assert "RuntimeError: connect with ‹LABBOT_DEVICE_PASSWORD› failed" in text
    assert "again with ‹LABBOT_DEVICE_PASSWORD›" in text and "Stack (most recent call" in text


async def test_every_code_block_posted_or_updated_has_its_secret_values_masked() -> None:
    """Whatever built it (a device's error, a refused line): blocks and attachments masked,
    the sentence around them as written."""
    chat = RecordingAdapter()
    adapter = ScrubbedAdapter(chat, SCRUB, MASK)
    thread = ThreadRef("console", "C1", "t1")
    error = CodeBlock("% Invalid input: ntp authentication-key 1 md5 Err-Key-9")
    long = CodeBlock("enable secret 5 $1$Att$x\n" * 3)
    message_id = await adapter.post(
        thread, Message("R1 said", blocks=(error,), attachments=(long,))
    )
    await adapter.update(thread, message_id, Message("again", blocks=(error,)))
    shown = [m for _, _, m in chat.posts] + [m for _, m in chat.updates]
    texts = [b.text for m in shown for b in (*m.blocks, *m.attachments)]
    assert not any("Err-Key-9" in text or "$1$Att$x" in text for text in texts)
    assert f"md5 {MASK.token('Err-Key-9')}" in texts[0] and shown[0].text == "R1 said"


JUNOS_LINE = "#" * (2800 - 30) + ' authentication-key "Quoted Key-4711-Zulu";'  # over a block


async def test_a_line_longer_than_a_code_block_is_masked_whole_before_the_chat_cuts_it() -> None:
    """code_blocks cut a line longer than a block in pieces before they were masked: a quoted
    Junos key with a space across the cut went to the chat with its second word in clear."""
    from adapters.slack.blocks import render
    from bot.views.code_blocks import BLOCK_LIMIT, sections_message

    assert JUNOS_LINE.index("Quoted") < BLOCK_LIMIT < JUNOS_LINE.index("Zulu")
    chat = RecordingAdapter()
    adapter = ScrubbedAdapter(chat, SCRUB, MASK)
    message = sections_message("R1 said", [("R1", f"interfaces {{\n{JUNOS_LINE}\n}}", "text")])
    await adapter.post(ThreadRef("console", "C1", "t1"), message)
    posted = chat.posts[0][2]
    slack = render(posted)
    shown = [b.text for b in posted.blocks] + [str(block) for block in slack.blocks]
    assert not any("Key-4711" in text or "Zulu" in text for text in shown)
    assert any(MASK.token("Quoted Key-4711-Zulu") in text for text in shown)

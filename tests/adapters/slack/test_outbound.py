"""Messages out: what lands in Slack for post, update, ephemeral and long output."""

from __future__ import annotations

from adapters.chat import CodeBlock, FileAttachment, Message, ThreadRef, button_value
from adapters.slack.adapter import SlackAdapter
from tests.adapters.slack.payloads import click
from tests.adapters.slack.serving import http_adapter
from tests.fakes.slack_api import SlackApiStandIn
from tests.support.gates import gate_message

THREAD = ThreadRef("slack", "C1", "1699999999.000100")
VALUE = button_value("int-1", "b" * 64)
GATE = gate_message(
    "*Step 1 of 2 — template*", CodeBlock("router ospf {{ pid }}", "jinja", "Template (ios)"), VALUE
)


def _adapter(api: SlackApiStandIn) -> SlackAdapter:
    return http_adapter(api)


async def test_gate_is_posted_in_the_thread_and_closed_with_its_footer(
    slack_api: SlackApiStandIn,
) -> None:
    adapter = _adapter(slack_api)
    ts = await adapter.post(THREAD, GATE)
    posted = slack_api.messages[ts]
    assert (posted.channel, posted.thread_ts) == ("C1", THREAD.thread)
    assert [b["text"]["text"] for b in posted.buttons] == ["Approve", "Modify", "Cancel"]
    shown = [b for b in posted.blocks if b["type"] != "actions"]
    await adapter.close_gate(THREAD, ts, "✅ Approved by <@U2> at 12:00 UTC", ("<@U2>",))
    assert posted.buttons == [] and posted.updates == 1
    assert "✅ Approved by <@U2> at 12:00 UTC" in posted.all_text  # the mention kept live
    assert "router ospf {{ pid }}" in posted.all_text
    assert posted.blocks[:-1] == shown  # every block as shown, the footer in the buttons' place


async def test_a_gate_posted_elsewhere_is_closed_with_the_blocks_its_click_carried(
    slack_api: SlackApiStandIn,
) -> None:
    ts = await _adapter(slack_api).post(THREAD, GATE)  # another replica posted it
    posted = slack_api.messages[ts]
    shown = [b for b in posted.blocks if b["type"] != "actions"]
    adapter = _adapter(slack_api)
    adapter.listeners._gates.clicked(click(posted, "Approve"))  # the click this one handles
    await adapter.close_gate(THREAD, ts, "✅ Approved by bob at 12:00 UTC")
    assert posted.buttons == [] and posted.blocks[:-1] == shown
    assert "✅ Approved by bob at 12:00 UTC" in posted.all_text


async def test_a_gate_never_seen_here_keeps_its_message_and_the_footer_is_said(
    slack_api: SlackApiStandIn,
) -> None:
    ts = await _adapter(slack_api).post(THREAD, GATE)
    await _adapter(slack_api).close_gate(THREAD, ts, "✅ Approved by bob at 12:00 UTC")
    assert slack_api.messages[ts].updates == 0
    said = [m for m in slack_api.thread("C1", THREAD.thread) if m.ts != ts]
    assert [m.text for m in said] == ["✅ Approved by bob at 12:00 UTC"]


async def test_ephemeral_goes_only_to_that_user(slack_api: SlackApiStandIn) -> None:
    adapter = _adapter(slack_api)
    await adapter.post(THREAD, Message("Refused: not an approver.", ephemeral_to="U3"))
    assert slack_api.messages == {}
    (note,) = slack_api.ephemerals
    assert (note["user"], note["channel"], note["thread_ts"]) == ("U3", "C1", THREAD.thread)
    assert "not an approver" in note["text"]


async def test_over_long_output_is_uploaded_as_a_file_in_the_thread(
    slack_api: SlackApiStandIn,
) -> None:
    adapter = _adapter(slack_api)
    output = "\n".join(f"line {n} of a very long show output" for n in range(3000))
    message = Message("R1 pushed", attachments=(CodeBlock(output, "text", "R1 output"),))
    ts = await adapter.post(THREAD, message)
    (upload,) = slack_api.uploads.values()
    assert upload["content"] == output
    assert (upload["channel"], upload["thread_ts"], upload["title"]) == (
        "C1",
        THREAD.thread,
        "R1 output",
    )
    assert "R1 output" in slack_api.messages[ts].all_text
    await adapter.update(THREAD, ts, message)  # no second upload on update
    assert len(slack_api.called("files.getUploadURLExternal")) == 1


async def test_many_devices_fit_slacks_limits(slack_api: SlackApiStandIn) -> None:
    adapter = _adapter(slack_api)
    code = tuple(CodeBlock("x\n" * 1400, "text", f"R{n} configuration") for n in range(60))
    ts = await adapter.post(THREAD, Message("60 devices", blocks=code, buttons=GATE.buttons))
    posted = slack_api.messages[ts]
    assert len(posted.blocks) <= 50 and len(posted.buttons) == 3  # the stand-in refuses more
    titles = {u["title"] for u in slack_api.uploads.values()}
    shown = {f"R{n} configuration" for n in range(60) if f"*R{n} configuration*" in posted.all_text}
    assert titles | shown == {f"R{n} configuration" for n in range(60)} and titles


async def test_top_level_post_starts_a_thread(slack_api: SlackApiStandIn) -> None:
    adapter = _adapter(slack_api)
    ts = await adapter.post(ThreadRef("slack", "C1", ""), Message("hello"))
    assert slack_api.messages[ts].thread_ts is None


async def test_a_picture_is_uploaded_into_the_thread_as_it_is(slack_api: SlackApiStandIn) -> None:
    adapter = _adapter(slack_api)
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # bytes that are not text
    picture = FileAttachment("topology.png", png, "image/png", image=True, alt="Lab topology")
    await adapter.post(THREAD, Message("The change touches R1", files=(picture,)))
    (upload,) = slack_api.uploads.values()
    assert upload["data"] == png
    assert (upload["filename"], upload["title"], upload["thread_ts"]) == (
        "topology.png",
        "Lab topology",
        THREAD.thread,
    )

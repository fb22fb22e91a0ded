"""Reads as people see them: per device its parsed table or its output (secret values masked
by the device's platform rules), and the LLM's diagnosis with the reads it used. Pure (and
picklable: `present_reads` runs in a worker process, off the event loop).

Output is bounded: past `OutputBounds.inline_chars` a device's output is shown as its first lines
plus a file holding all of it (not parsed); past `max_chars` it is not shown at all, only said."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from adapters.chat import FileAttachment, Message
from base.errors import ReadRefused
from base.masking import SecretMask
from bot import messages
from bot.views.code_blocks import sections_message
from workflow.model import ResponseItem, StandardResponse
from workflow.reads.request import ReadRequest
from workflow.reads.tables import parsed_table
from workflow.results.responses import build_response

__all__ = [
    "OutputBounds",
    "masked_response",
    "posted_chars",
    "present_diagnosis",
    "present_reads",
    "read_refusal",
]


@dataclass(frozen=True)
class OutputBounds:
    inline_chars: int = 20_000  # LABBOT_READ_INLINE_CHARS: longer output is a head plus a file
    max_chars: int = 4_000_000  # LABBOT_READ_MAX_CHARS: longer output is not shown at all
    head_lines: int = 40  # lines shown of an output that goes as a file


def present_reads(
    request: ReadRequest,
    sent: Mapping[str, str],
    response: StandardResponse,
    mask: SecretMask,
    bounds: OutputBounds = OutputBounds(),
) -> Message:
    """One code block per device: its parsed table where a parser exists (unless `raw` was
    asked), else its output, secret values masked; a long output is its head and a file; a
    failed device shows its error."""
    sections, files = [], []
    for item in response["data"]:
        name, command = item["name"], sent[item["name"]]
        title, platform = f"✓ {name} · {command}", request.platforms[name]
        answered, output = masked_output(item, platform, mask, bounds)
        if not answered:
            sections.append((f"✗ {name} · {command}", output, "text"))
            continue
        if len(output) > bounds.inline_chars:
            file = output_file(name, command, output)
            sections.append((title, head(output, bounds, file.name), "text"))
            files.append(file)
            continue
        table = None  # `raw` asks for the text as it came
        if not request.raw:
            table = parsed_table(platform, command, output, messages.READ_MORE_ROWS)
        sections.append((title, table or output or messages.NO_OUTPUT, "text"))
    text = messages.READ_RESULT.format(
        command=request.asked,
        devices=", ".join(sent),
        ok=response["successful"],
        failed=response["failed"],
    )
    level = "success" if response["success"] else "error"
    return sections_message(text, sections, level=level, files=tuple(files))


def masked_response(
    request: ReadRequest,
    sent: Mapping[str, str],
    response: StandardResponse,
    mask: SecretMask,
    bounds: OutputBounds = OutputBounds(),
) -> StandardResponse:
    """The reads as a program is given them (an MCP tool's answer): one item per device with
    its output or error, secret values masked by the device's platform rules as in chat; an
    output past `max_chars` is that device's failure, neither masked nor given."""
    items: list[ResponseItem] = []
    for item in response["data"]:
        name, platform = item["name"], request.platforms[item["name"]]
        shown = ResponseItem(id=item["id"], name=name, status=item["status"])
        answered, output = masked_output(item, platform, mask, bounds)
        if answered:
            shown["result"] = output
        else:
            shown["status"], shown["error"] = "failed", output
        items.append(shown)
    return build_response(items, metadata={"command": request.asked, "sent": dict(sent)})


def masked_output(
    item: ResponseItem, platform: str, mask: SecretMask, bounds: OutputBounds
) -> tuple[bool, str]:
    """(True, the device's output masked) or (False, its error masked, or why an output past
    `max_chars` is neither masked, parsed nor shown)."""
    if item["status"] != "success":
        return False, mask.config(item.get("error", ""), platform)
    output = item.get("result", "")
    if len(output) > bounds.max_chars:
        return False, messages.READ_TOO_BIG.format(size=len(output), limit=bounds.max_chars)
    return True, mask.config(output, platform)


def head(output: str, bounds: OutputBounds, file_name: str) -> str:
    """The first lines of a long output (at most `inline_chars` of them) and what was left out."""
    lines = output.splitlines()
    shown = "\n".join(lines[: bounds.head_lines])[: bounds.inline_chars]
    cut = messages.READ_CUT.format(lines=len(lines), size=len(output), file=file_name)
    return f"{shown}\n{cut}"


def output_file(device: str, command: str, output: str) -> FileAttachment:
    """A device's whole output as a text file named after the device and the command."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", command).strip("-")[:60] or "output"
    return FileAttachment(f"{device}-{words}.txt", output.encode(), "text/plain")


def posted_chars(message: Message) -> int:
    """How much a message puts into the chat: its texts, code blocks and files."""
    blocks = (*message.blocks, *message.attachments)
    return (
        len(message.text)
        + len(message.footer)
        + sum(len(b.text) for b in blocks)
        + sum(len(f.data) for f in message.files)
    )


def present_diagnosis(
    answer: str, reads: list[tuple[str, str]], proposal: str | None, mask: SecretMask
) -> Message:
    """The LLM's answer (secret values masked), the reads it used and the change it proposes."""
    used = "; ".join(f"{device}: {command}" for device, command in reads) or messages.NO_READS
    notes = [messages.DIAGNOSIS_READS.format(reads=used)]
    if proposal:
        notes.append(messages.DIAGNOSIS_PROPOSAL.format(proposal=proposal))
    return Message(mask.config(answer), footer="\n".join(notes))


def read_refusal(refused: ReadRefused) -> str:
    """Why a read was refused, naming the words at fault and what is allowed instead."""
    if refused.problem == "unsafe":
        allowed = ", ".join(repr(ch) for ch in refused.words)
    else:
        item = messages.READ_ALLOWED_ITEM.get(refused.problem, "{item}")
        allowed = ", ".join(item.format(item=word) for word in refused.words)
    reason = messages.READ_REFUSED[refused.problem].format(
        word=refused.word or messages.THIS_PLATFORM,
        option=refused.option,
        value=refused.value,
        allowed=allowed,
        limit=refused.limit,
        count=refused.count,
    )
    if not refused.device:
        return reason
    return messages.READ_REFUSED_ON.format(device=refused.device, reason=reason)

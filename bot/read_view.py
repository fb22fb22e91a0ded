"""Reads as people see them: per device its parsed table or its output (secrets masked), and
the LLM's diagnosis with the reads it used. Pure."""

from __future__ import annotations

from collections.abc import Mapping

from adapters.chat import Message
from base.errors import ReadRefused
from bot import messages
from bot.blocks import sections_message
from bot.redact import mask_secrets
from workflow.model import StandardResponse
from workflow.reads.request import ReadRequest
from workflow.reads.tables import parsed_table


def present_reads(
    request: ReadRequest, sent: Mapping[str, str], response: StandardResponse
) -> Message:
    """One code block per device: its parsed table where a parser exists (unless `raw` was
    asked), else its output with secrets masked; a failed device shows its error."""
    sections = []
    for item in response["data"]:
        name, command = item["name"], sent[item["name"]]
        if item["status"] != "success":
            sections.append((f"✗ {name} · {command}", item.get("error", ""), "text"))
            continue
        output = mask_secrets(item.get("result", ""))
        table = None  # `raw` asks for the text as it came
        if not request.raw:
            table = parsed_table(request.platforms[name], command, output, messages.READ_MORE_ROWS)
        sections.append((f"✓ {name} · {command}", table or output or messages.NO_OUTPUT, "text"))
    text = messages.READ_RESULT.format(
        command=request.asked,
        devices=", ".join(sent),
        ok=response["successful"],
        failed=response["failed"],
    )
    return sections_message(text, sections, level="success" if response["success"] else "error")


def present_diagnosis(answer: str, reads: list[tuple[str, str]], proposal: str | None) -> Message:
    """The LLM's answer (secrets masked), the reads it used and the change it proposes."""
    used = "; ".join(f"{device}: {command}" for device, command in reads) or messages.NO_READS
    notes = [messages.DIAGNOSIS_READS.format(reads=used)]
    if proposal:
        notes.append(messages.DIAGNOSIS_PROPOSAL.format(proposal=proposal))
    return Message(mask_secrets(answer), footer="\n".join(notes))


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

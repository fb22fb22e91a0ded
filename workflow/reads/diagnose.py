"""A question in plain words answered by an LLM that may only READ: it picks reads through one
tool (`read(device, command)`), each checked against the same allow-list and device names as
a typed read (a refused call is told to the model, nothing is sent), in at most `max_rounds`
rounds, then answers with a short diagnosis quoting the outputs it used. A line starting with
`Proposed change:` is a change it suggests; the bot starts it as a request, through both gates.

Servers without tool calling get the same loop in JSON written in the text
(workflow/reads/diagnose_text.py), with the same checks: by LABBOT_LLM_OUTPUT (`tools`, or
`json_schema`/`json` for the text), and with `auto` when planning already found the endpoint
without tools or when it refuses the tool (HTTP 400/422, a 500/501 naming tools), from then on.
The model reads every output masked (its client's transport, workflow.llm.secrets); its answer
is masked again, every value it was not shown included, before anyone reads it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel, Field

from base.errors import PlanningError, ReadRefused
from base.whole_lines import whole_lines
from workflow.llm.answers import strip_thinking
from workflow.llm.capped_text import capped
from workflow.llm.failures import describe_llm_failure
from workflow.llm.output import OutputMode, refuses_strategy, remembered_strategy
from workflow.llm.schemas import tool_definition
from workflow.llm.secrets import LLMSecrets
from workflow.model import Device, StandardResponse
from workflow.reads import diagnose_text
from workflow.reads.allowlist import RULES, allowed_read

__all__ = ["LabDiagnosis"]

MAX_OUTPUT_CHARS = 4000  # of one read, given back to the model
LINE_LEFT_OUT = "[a line of {chars:,} characters left out: too long to mask]"
PROPOSAL = "Proposed change:"
# Sends allow-listed reads (device -> command) the way a typed read is sent (audited, rate
# limited); None when the person's read budget is spent.
SendReads = Callable[[dict[str, str]], Awaitable[StandardResponse | None]]


class Read(BaseModel):
    """Run one read-only command on one lab device and get its output."""

    device: str = Field(description="the device name, exactly as listed")
    command: str = Field(description="one allow-listed read command, e.g. `show ip route`")


@dataclass
class Diagnosis:
    answer: str
    reads: list[tuple[str, str]] = field(default_factory=list)  # (device, command) sent
    proposal: str | None = None  # a change request the model suggests


def system_prompt(devices: list[Device], by_text: bool = False) -> str:
    how = "ask for a read" if by_text else "call the `Read` tool"
    lines = [
        f"You diagnose a network lab by reading device state. You can only read: {how} "
        "with one device and one command. Allowed commands per platform family: "
        + "; ".join(f"{family}: {', '.join(rules.verbs)} …" for family, rules in RULES.items())
        + ". Pipes only to output filters. Anything else is refused.",
        "Devices: " + ", ".join(f"{d.name} ({d.family})" for d in devices),
        "When you know enough, answer in at most 6 lines, quoting the output lines you used. "
        f"If a configuration change would fix it, end with one line `{PROPOSAL} <request>` "
        "(for example `Proposed change: configure ospf on R3`).",
    ]
    return "\n".join([*lines, diagnose_text.PROTOCOL] if by_text else lines)


class LabDiagnosis:
    """Answers free questions with reads chosen by `model` (bounded rounds and reads)."""

    def __init__(
        self,
        model: BaseChatModel,
        secrets: LLMSecrets,
        max_rounds: int = 4,
        max_reads: int = 8,
        why_refused: Callable[[ReadRefused], str] = str,
        output: OutputMode = "auto",
    ) -> None:
        """`secrets`: those of the model's client (what it was sent, masked); `why_refused`:
        how a refused read is told to the model (the bot words it as it does for people);
        `output`: LABBOT_LLM_OUTPUT."""
        self._chat = model
        self._secrets = secrets
        self._model = model.bind_tools([tool_definition(Read)])
        self.max_rounds, self.max_reads = max_rounds, max_reads
        self._why_refused = why_refused
        self._output = output
        self._by_text = output in ("json_schema", "json")  # for good once true

    async def answer(self, question: str, devices: list[Device], send: SendReads) -> Diagnosis:
        if self._output == "auto" and remembered_strategy(self._chat) not in (None, "tools"):
            self._by_text = True  # planning found the endpoint without tool calling
        messages: list[BaseMessage] = [
            SystemMessage(system_prompt(devices, self._by_text)),
            HumanMessage(question),
        ]
        diagnosis = Diagnosis("")
        by_name = {d.name.casefold(): d for d in devices}
        for _ in range(self.max_rounds):
            reply = await self._ask(messages, devices)
            messages.append(reply)
            turn = self._turn(reply)
            if turn.answer is not None:
                # masked whole, then cut: a secret cut in two is masked in part only
                return _concluded(diagnosis, capped(self._secrets.hide(turn.answer)))
            if not turn.reads:
                messages.append(HumanMessage(diagnose_text.UNREADABLE))
            for args, call_id in zip(turn.reads, _call_ids(reply), strict=False):
                result = await self._read(args, by_name, send, diagnosis)
                messages.append(_result_message(args, result, call_id))
        diagnosis.answer = f"No conclusion within {self.max_rounds} rounds of reads."
        return diagnosis

    def _turn(self, reply: AIMessage) -> diagnose_text.Turn:
        if self._by_text:
            return diagnose_text.read_turn(reply.text)
        if not reply.tool_calls:
            return diagnose_text.Turn(answer=strip_thinking(reply.text))
        return diagnose_text.Turn(reads=[dict(call.get("args", {})) for call in reply.tool_calls])

    async def _ask(self, messages: list[BaseMessage], devices: list[Device]) -> AIMessage:
        """The model's next turn; with `auto`, a refused tool switches to the text for good."""
        try:
            if not self._by_text:
                try:
                    return _message(await self._model.ainvoke(messages))
                except openai.APIStatusError as err:
                    if self._output != "auto" or not refuses_strategy(err):
                        raise
                self._by_text = True
                messages[0] = SystemMessage(system_prompt(devices, by_text=True))
            return _message(await self._chat.ainvoke(messages))
        except openai.APIError as err:
            raise PlanningError(describe_llm_failure(err, self._chat)) from err

    async def _read(
        self, args: dict[str, object], by_name: dict[str, Device], send: SendReads, done: Diagnosis
    ) -> str:
        """The output for the model, or why the call was refused (nothing sent then)."""
        device = by_name.get(str(args.get("device", "")).casefold())
        if device is None:
            return f"refused: no device {args.get('device')!r}; devices: {', '.join(by_name)}"
        if len(done.reads) >= self.max_reads:
            return f"refused: at most {self.max_reads} reads per question"
        try:
            command = allowed_read(device.platform, str(args.get("command", "")))
        except ReadRefused as refused:
            return f"refused: {self._why_refused(refused)}"
        response = await send({device.name: command})
        if response is None:
            return "refused: the person's read limit is reached; answer with what you have"
        done.reads.append((device.name, command))
        item = response["data"][0]
        text = item.get("result", "") if item["status"] == "success" else item.get("error", "")
        # masked by whole lines, cut at whole lines: a line cut first (a quoted Junos key with
        # spaces without its closing quote) would be masked in part only. Bounded for masking at
        # twice what the model is given (a mask may be longer than its secret)
        bounded = whole_lines(text, 2 * MAX_OUTPUT_CHARS, _left_out)
        masked = self._secrets.hide(bounded)
        return whole_lines(masked, MAX_OUTPUT_CHARS, _left_out) or "(no output)"


def _left_out(chars: int) -> str:
    return LINE_LEFT_OUT.format(chars=chars)


def _message(reply: object) -> AIMessage:
    assert isinstance(reply, AIMessage)
    return reply


def _call_ids(reply: AIMessage) -> list[str | None]:
    """The tool call ids to answer (None a turn in the text: it has no call to answer)."""
    return [call.get("id") or "" for call in reply.tool_calls] or [None]


def _result_message(args: dict[str, object], result: str, call_id: str | None) -> BaseMessage:
    if call_id is None:
        return HumanMessage(diagnose_text.output_text(args, result))
    return ToolMessage(result, tool_call_id=call_id)


def _concluded(diagnosis: Diagnosis, text: str) -> Diagnosis:
    lines = text.strip().splitlines()
    proposals = [line for line in lines if line.startswith(PROPOSAL)]
    diagnosis.answer = "\n".join(line for line in lines if not line.startswith(PROPOSAL))
    if proposals:
        diagnosis.proposal = proposals[-1][len(PROPOSAL) :].strip() or None
    return diagnosis

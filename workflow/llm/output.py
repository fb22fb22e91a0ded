"""Structured answers from any OpenAI-compatible server: one of three strategies, or `auto`.

- `tools`: the answer is a named tool call (OpenAI, vLLM with or without a tool parser — named
  calls need none —, Ollama models with tool support, llama.cpp with `--jinja`).
- `json_schema`: `response_format: {"type": "json_schema"}` (Ollama 0.5+, vLLM, llama.cpp).
- `json`: the schema in the system message and JSON in the text, fenced or not (any server).

`auto` tries them in that order and moves on when the server refuses one (HTTP 400/422, or a
500/501 naming tools, schemas or grammars) or answers twice in a row with no object at all (one
such answer is asked again like any invalid one: a single bad answer says nothing of what the
server supports); what worked is remembered per endpoint (base URL + model) for the life of the
process — never persisted, so a restarted bot tries again from the start. An answer that is
not valid goes back to the model with the validation error (bounded); an answer cut off at the
token budget (`finish_reason: "length"`) is asked once more with a larger budget. Answers are
streamed (progress goes to `on_progress`) unless the endpoint sent no event when asked to stream
(then it is asked plainly from then on, for this process); each request must finish within
`timeout` seconds.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, cast

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.messages.ai import add_ai_message_chunks
from pydantic import BaseModel, ValidationError

from base.errors import PlanningError
from workflow.llm import answers, prompts
from workflow.llm.failures import describe_llm_failure, timeout_failure
from workflow.llm.schemas import tool_definition
from workflow.model import LLMProgress, TokenUsage, sum_usage
from workflow.results.progress_edits import ProgressEdits

__all__ = [
    "OutputMode",
    "StructuredOutput",
    "endpoint_key",
    "refuses_strategy",
    "remembered_strategy",
]

Strategy = Literal["tools", "json_schema", "json"]
OutputMode = Literal["auto", "tools", "json_schema", "json"]
STRATEGIES: tuple[Strategy, ...] = ("tools", "json_schema", "json")
LARGER_BUDGET = 4  # the one retry of a cut-off answer gets this many times the budget
UNREAD_BEFORE_NEXT = 2  # `auto`: answers in a row with no object before trying the next way
PROGRESS_EVERY_SECONDS = 0.5
# A streamed answer is read up to this many characters per token of its budget: a server that
# ignores max_tokens and streams megabytes is cut off there (as if it said finish_reason length)
STREAM_CHARS_PER_TOKEN = 16
# A refusal of the way of asking: any 400/422; a 500/501 only when it names what was asked
# (llama.cpp: "500 tools param requires --jinja flag"), not "500 model overloaded".
_REFUSING_STATUS = {400, 422}
_REFUSING_SERVER_ERROR = re.compile(r"tool|function|jinja|response_format|schema|grammar", re.I)
_WORKED: dict[tuple[str, str], Strategy] = {}  # per endpoint, for this process only
_NOT_STREAMING: set[tuple[str, str]] = set()  # endpoints that sent no events when asked to

AnswerT = TypeVar("AnswerT", bound=BaseModel)
ProgressSink = Callable[[LLMProgress], Awaitable[None] | None]


@dataclass(frozen=True)
class Asked(Generic[AnswerT]):
    """A valid answer, what it cost over every call, and the strategy that gave it."""

    answer: AnswerT
    usage: TokenUsage
    strategy: Strategy
    refused: tuple[str, ...] = ()  # `auto`: the strategies tried first, and why they failed


class _Unsupported(Exception):
    """The server cannot give a structured answer this way (`auto` tries the next)."""


def endpoint_key(model: BaseChatModel) -> tuple[str, str]:
    base = getattr(model, "openai_api_base", None) or "https://api.openai.com/v1"
    return str(base), str(getattr(model, "model_name", "?"))


def remembered_strategy(model: BaseChatModel) -> Strategy | None:
    return _WORKED.get(endpoint_key(model))


class StructuredOutput:
    """Asks `model` for an answer of a pydantic schema, by `mode`."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        mode: OutputMode = "auto",
        max_tokens: int = 4096,
        timeout: float | None = None,
        repairs: int = 2,
        reveal: Callable[[Any, str, Any], Any] | None = None,
    ) -> None:
        """`reveal(answer, said, earlier)`: what the answer's object becomes before it is read,
        given the words people typed that it answers and the change's earlier proposal
        (workflow.llm.secrets gives back the values they hold where the model used their
        tokens)."""
        self.model = model
        self.mode = mode
        self.max_tokens = max_tokens
        self.timeout = timeout if timeout is not None else getattr(model, "request_timeout", None)
        self.repairs = repairs
        self.reveal = reveal

    def strategies(self) -> tuple[Strategy, ...]:
        if self.mode != "auto":
            return (self.mode,)
        known = remembered_strategy(self.model)
        return STRATEGIES if known is None else (known, *(s for s in STRATEGIES if s != known))

    async def ask(
        self,
        schema: type[AnswerT],
        system: str,
        human: str,
        on_progress: ProgressSink | None = None,
        said: str = "",
        earlier: Any = None,
    ) -> Asked[AnswerT]:
        """The answer of `schema` to `human`; `said`: the words people typed in the request
        (and feedback) it answers, and `earlier`: the change's earlier proposal, whose values
        the answer may get back (`reveal`)."""
        spent: list[TokenUsage] = []
        refusals: list[str] = []
        for strategy in self.strategies():
            try:
                answer = await self._ask_with(
                    strategy, schema, system, human, on_progress, spent, said, earlier
                )
            except _Unsupported as err:
                refusals.append(f"{strategy}: {err}")
                continue
            _WORKED[endpoint_key(self.model)] = strategy
            return Asked(answer, sum_usage(spent), strategy, tuple(refusals))
        raise PlanningError(
            f"{describe_endpoint(self.model)} gave no structured answer "
            f"({'; '.join(refusals)}); check the model, or set LABBOT_LLM_OUTPUT to a "
            "strategy it supports"
        )

    async def _ask_with(
        self,
        strategy: Strategy,
        schema: type[AnswerT],
        system: str,
        human: str,
        on_progress: ProgressSink | None,
        spent: list[TokenUsage],
        said: str,
        earlier: Any,
    ) -> AnswerT:
        tool = tool_definition(schema)
        if strategy == "json":
            system = system + "\n" + prompts.json_answer(tool["function"]["parameters"])
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(human)]
        unread = 0
        for attempt in range(self.repairs + 1):
            reply = await self._call(strategy, tool, messages, on_progress, spent)
            found = answers.answer_object(reply)
            unread = unread + 1 if found is None else 0
            if unread == UNREAD_BEFORE_NEXT and self._may_fall_back(strategy):
                raise _Unsupported(f"{unread} answers in a row had no tool call and no JSON")
            try:
                if found is None:
                    raise ValueError("no JSON object in the answer")
                revealed = self.reveal(found, said, earlier) if self.reveal else found
                return schema.model_validate(revealed)
            except (ValidationError, ValueError) as err:
                problem = str(err)
            if attempt == self.repairs:
                raise PlanningError(
                    f"the LLM's answer did not match the expected format after {attempt + 1} "
                    f"tries ({problem.splitlines()[0]}); try again or use another "
                    "LABBOT_LLM_OUTPUT or model"
                )
            wrote = answers.answer_text(reply)
            messages += [AIMessage(wrote), HumanMessage(prompts.invalid_answer(problem))]
        raise AssertionError("unreachable")

    def _may_fall_back(self, strategy: Strategy) -> bool:
        return self.mode == "auto" and strategy != STRATEGIES[-1]

    async def _call(
        self,
        strategy: Strategy,
        tool: dict[str, Any],
        messages: Sequence[BaseMessage],
        on_progress: ProgressSink | None,
        spent: list[TokenUsage],
    ) -> AIMessage:
        """One answer, asked again once with a larger budget if it was cut off."""
        budget = self.max_tokens
        for _ in range(2):
            runnable = self._bound(strategy, tool, budget)
            reply = await self._stream(strategy, runnable, messages, on_progress, budget)
            spent.append(answers.usage_of(reply, messages, json.dumps(tool)))
            if reply.response_metadata.get("finish_reason") != "length":
                return reply
            budget *= LARGER_BUDGET
        cut_at = budget // LARGER_BUDGET
        raise PlanningError(
            f"the LLM's answer was cut off twice (finish_reason length, at {cut_at} tokens); "
            "raise LABBOT_LLM_MAX_TOKENS or ask for a smaller change"
        )

    def _bound(self, strategy: Strategy, tool: dict[str, Any], budget: int) -> Any:
        name = tool["function"]["name"]
        if strategy == "tools":
            return self.model.bind_tools([tool], tool_choice=name, max_tokens=budget)
        if strategy == "json_schema":
            schema = tool["function"]["parameters"]
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": False},
            }
            return self.model.bind(response_format=response_format, max_tokens=budget)
        return self.model.bind(max_tokens=budget)

    async def _stream(
        self,
        strategy: Strategy,
        runnable: Any,
        messages: Sequence[BaseMessage],
        on_progress: ProgressSink | None,
        budget: int,
    ) -> AIMessage:
        """The streamed answer (at most `budget` tokens' worth), within `timeout` seconds in
        all. The stream runs as a task given up at the deadline: cancelling it inside
        LangChain's stream is not always seen in time (measured: about one run in five went on
        to the end)."""
        key = endpoint_key(self.model)
        streaming = key not in _NOT_STREAMING
        edits = ProgressEdits("model progress")  # chat edits: off the model's clock
        receiving = asyncio.ensure_future(
            _receive(runnable, messages, on_progress, edits, budget * STREAM_CHARS_PER_TOKEN)
            if streaming
            else runnable.ainvoke(messages)
        )
        try:
            done, _ = await asyncio.wait({receiving}, timeout=self.timeout)
        finally:
            if not receiving.done():
                receiving.cancel()
                receiving.add_done_callback(_forget)
        await edits.drain()  # at most the edit running and the latest one
        if not done:
            raise PlanningError(timeout_failure(self.model, self.timeout))
        try:
            written = receiving.result()
        except openai.APIStatusError as err:
            if refuses_strategy(err) and self._may_fall_back(strategy):
                raise _Unsupported(f"HTTP {err.status_code} {_error_message(err)}") from err
            raise PlanningError(describe_llm_failure(err, self.model)) from err
        except openai.APIError as err:
            raise PlanningError(describe_llm_failure(err, self.model)) from err
        if written is None:  # no event at all: the server does not stream; ask it plainly
            _NOT_STREAMING.add(key)
            return await self._stream(strategy, runnable, messages, on_progress, budget)
        return cast(AIMessage, written)


async def _receive(
    runnable: Any,
    messages: Sequence[BaseMessage],
    on_progress: ProgressSink | None,
    edits: ProgressEdits,
    max_chars: int,
) -> AIMessage | None:
    """The chunks summed once at the end (None: no chunk came; summing as they come parses the
    tool call's JSON again with every chunk); progress at most every PROGRESS_EVERY_SECONDS,
    its chat edits run by `edits` beside the stream (a slow or failing chat is not the model's).
    Past `max_chars` the stream is left unread and the answer is cut off (finish_reason
    length), so neither time nor memory grows with what a server sends."""
    started = reported = time.monotonic()
    chunks: list[AIMessageChunk] = []
    size = 0
    try:
        async for chunk in runnable.astream(messages, stream_usage=True):
            size += len(_streamed_text(chunk))
            if size > max_chars:
                return _cut_off()
            chunks.append(chunk)
            now = time.monotonic()
            if on_progress is not None and now - reported >= PROGRESS_EVERY_SECONDS:
                reported = now
                tokens = answers.tokens_of_chars(size)
                edits.tell(on_progress, LLMProgress(round(now - started, 1), tokens))
    except ValueError:  # LangChain: "No generation chunks were returned"
        if chunks:
            raise
    if not chunks:
        return None
    written = add_ai_message_chunks(chunks[0], *chunks[1:])
    return AIMessage(
        content=written.content,
        tool_calls=written.tool_calls,
        invalid_tool_calls=written.invalid_tool_calls,
        usage_metadata=written.usage_metadata,
        response_metadata=written.response_metadata,
    )


def _cut_off() -> AIMessage:
    """An answer stopped at its size, marked as cut off at the token budget (what was read of
    it is dropped: a cut-off answer is asked again or refused)."""
    return AIMessage(content="", response_metadata={"finish_reason": "length"})


def _forget(task: asyncio.Future[Any]) -> None:
    """A stream given up at its deadline: its late end (or error) is of no interest."""
    if not task.cancelled():
        task.exception()


def _streamed_text(chunk: AIMessageChunk) -> str:
    return chunk.text + "".join(str(c.get("args") or "") for c in chunk.tool_call_chunks)


def refuses_strategy(err: openai.APIStatusError) -> bool:
    """The server refused the way of asking (not a fault of its own)."""
    if err.status_code in _REFUSING_STATUS:
        return True
    return err.status_code in (500, 501) and bool(
        _REFUSING_SERVER_ERROR.search(_error_message(err))
    )


def _error_message(err: openai.APIStatusError) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    return str(body.get("message", err.message))


def describe_endpoint(model: BaseChatModel) -> str:
    base, name = endpoint_key(model)
    return f"the LLM endpoint at {base} (model {name!r})"

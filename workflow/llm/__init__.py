"""The LLM planner over any OpenAI-compatible endpoint (`OPENAI_BASE_URL`, `LABBOT_LLM_MODEL`)."""

from __future__ import annotations

import functools

import httpx
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from workflow.library.catalog import load_catalog
from workflow.llm.output import OutputMode, StructuredOutput
from workflow.llm.planner import LLMPlanner
from workflow.llm.secrets import LLMSecrets, MaskedRequests
from workflow.llm.wire import ArgumentsAsText


def make_chat_model(
    *, api_key: str, base_url: str | None, model: str, timeout: float, secrets: LLMSecrets
) -> ChatOpenAI:
    """`ChatOpenAI` on the endpoint. `max_retries=0`: a timeout is reported after `timeout`
    seconds, as its message says, not after three silent attempts. Its async HTTP client
    masks every request's secret values (workflow/llm/secrets.py), mends tool arguments
    sent as objects and bounds what it reads of an answer (workflow/llm/wire.py)."""
    transport = ArgumentsAsText(MaskedRequests(secrets))
    return ChatOpenAI(
        api_key=SecretStr(api_key),
        base_url=base_url,
        model=model,
        timeout=timeout,
        max_retries=0,
        temperature=0,
        http_async_client=httpx.AsyncClient(transport=transport, timeout=timeout),
    )


def make_llm_planner(
    *,
    api_key: str,
    base_url: str | None,
    model: str,
    timeout: float,
    secrets: LLMSecrets,
    output: OutputMode = "auto",
    max_tokens: int = 4096,
) -> LLMPlanner:
    """An LLMPlanner on `ChatOpenAI`, offered the built-in library as ready-made choices; it
    shows the model parameters named like secrets as their tokens, and its answers get back
    the values the request typed where the model used their tokens."""
    chat = make_chat_model(
        api_key=api_key, base_url=base_url, model=model, timeout=timeout, secrets=secrets
    )
    asker = StructuredOutput(
        chat, mode=output, max_tokens=max_tokens, timeout=timeout, reveal=secrets.reveal
    )
    hide_params = functools.partial(secrets.mask.param, "")  # a default as its parameter
    return LLMPlanner(chat, load_catalog(), asker, hide_params=hide_params)


__all__ = ["LLMPlanner", "LLMSecrets", "make_chat_model", "make_llm_planner"]

"""The LLM planner over any OpenAI-compatible endpoint (`OPENAI_BASE_URL`, `LABBOT_LLM_MODEL`)."""

from __future__ import annotations

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from workflow.library.catalog import load_catalog
from workflow.llm.planner import LLMPlanner


def make_llm_planner(
    *, api_key: str, base_url: str | None, model: str, timeout: float
) -> LLMPlanner:
    """An LLMPlanner on `ChatOpenAI`, offered the built-in library as ready-made choices.

    `max_retries=0`: a timeout is reported after `timeout` seconds, as its message says, not
    after three silent attempts.
    """
    chat = ChatOpenAI(
        api_key=SecretStr(api_key),
        base_url=base_url,
        model=model,
        timeout=timeout,
        max_retries=0,
        temperature=0,
    )
    return LLMPlanner(chat, load_catalog())


__all__ = ["LLMPlanner", "make_llm_planner"]

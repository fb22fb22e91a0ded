"""One line naming what went wrong with the LLM endpoint and the setting that fixes it."""

from __future__ import annotations

import openai
from langchain_core.language_models import BaseChatModel

__all__ = ["describe_llm_failure"]


def _where(model: BaseChatModel) -> str:
    return f"the LLM endpoint at {getattr(model, 'openai_api_base', None) or 'OPENAI_BASE_URL'}"


def timeout_failure(model: BaseChatModel, timeout: float | None) -> str:
    within = f" within {timeout:g} s" if isinstance(timeout, int | float) else ""
    return f"{_where(model)} did not answer{within}; check it is up or raise LABBOT_LLM_TIMEOUT"


def describe_llm_failure(err: openai.APIError, model: BaseChatModel) -> str:
    """One line naming what went wrong with the endpoint and the setting that fixes it."""
    where = _where(model)
    if isinstance(err, openai.APITimeoutError):
        return timeout_failure(model, getattr(model, "request_timeout", None))
    if isinstance(err, openai.APIConnectionError):
        return f"cannot reach {where} ({err}); check OPENAI_BASE_URL and that the server is up"
    if isinstance(err, openai.AuthenticationError):
        return f"{where} refused the API key (401); check OPENAI_API_KEY"
    if isinstance(err, openai.NotFoundError):
        model_name = getattr(model, "model_name", "?")
        return f"{where} does not know the model {model_name!r} (404); check LABBOT_LLM_MODEL"
    if isinstance(err, openai.APIStatusError):
        body = err.body if isinstance(err.body, dict) else {}
        return f"{where} answered HTTP {err.status_code}: {body.get('message', err.message)}"
    return f"{where} failed: {err}"

"""The LLM part of the doctor: the short `labbot llm check`, said in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from base.errors import ConfigError, LabbotError
from bot import messages
from bot.check.findings import Finding, fail, off, ok
from bot.settings import Settings

if TYPE_CHECKING:
    from workflow.llm.endpoint_check import CheckResult

__all__ = ["ask_endpoint"]


async def llm_finding(settings: Settings) -> Finding:
    if settings.openai_api_key is None:
        return off("llm", messages.LLM_OFF)
    try:
        result, endpoint, model = await ask_endpoint(settings)
    except LabbotError as exc:
        return fail("llm", str(exc), messages.LLM_FIX)
    said = messages.LLM_OK.format(
        model=model, endpoint=endpoint, strategy=result.asked.strategy, seconds=result.seconds
    )
    return ok("llm", said)


async def ask_endpoint(settings: Settings) -> tuple[CheckResult, str, str]:
    """The tiny structured question asked of the configured endpoint: (result, base, model)."""
    from bot.runtime.wiring import llm_options
    from workflow.llm import make_chat_model
    from workflow.llm.endpoint_check import check_endpoint
    from workflow.llm.output import StructuredOutput, endpoint_key

    if settings.openai_api_key is None:
        raise ConfigError(messages.LLM_CHECK_NO_KEY)
    chat = make_chat_model(**llm_options(settings))
    asker = StructuredOutput(
        chat,
        mode=settings.llm_output,
        max_tokens=settings.llm_max_tokens,
        timeout=settings.llm_timeout_seconds,
    )
    result = await check_endpoint(asker)
    base, model = endpoint_key(chat)
    return result, base, model

"""The LLM part of the doctor: the short `labbot llm check`, said in one line."""

from __future__ import annotations

from base.errors import LabbotError
from bot import messages
from bot.check.findings import Finding, fail, off, ok
from bot.llm_cli import ask_endpoint
from bot.settings import Settings


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

"""`labbot llm check`: the first thing to run against a new LLM endpoint."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import typer
from rich.console import Console

if TYPE_CHECKING:
    from bot.settings import Settings

llm_app = typer.Typer(help="The LLM endpoint: does it answer, and how.", no_args_is_help=True)
out = Console(soft_wrap=True)


@llm_app.command("check")
def check() -> None:
    """Ask the configured endpoint for a tiny structured answer; print the model, the output
    strategy that works, the latency and the tokens (measured or estimated)."""
    from bot.settings import load_settings

    out.print(asyncio.run(check_report(load_settings())), highlight=False)


async def check_report(settings: Settings) -> str:
    from bot import messages
    from bot.check.llm_item import ask_endpoint

    result, base, model = await ask_endpoint(settings)
    usage = result.asked.usage
    how = messages.TOKENS_ESTIMATED if usage.get("estimated") else messages.TOKENS_MEASURED
    tried = "".join(messages.LLM_CHECK_REFUSED.format(why=why) for why in result.asked.refused)
    return messages.LLM_CHECK_REPORT.format(
        endpoint=base,
        model=model,
        strategy=result.asked.strategy,
        mode=settings.llm_output,
        tried=tried,
        seconds=result.seconds,
        input=usage["input_tokens"],
        output=usage["output_tokens"],
        total=usage["total_tokens"],
        how=how,
        answer=f"{result.asked.answer.device}: {result.asked.answer.command}",
    )

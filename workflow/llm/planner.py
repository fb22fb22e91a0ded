"""The LLM planner: a `workflow.ports.Planner` over any LangChain chat model.

Structured output goes through tool calling (`method="function_calling"`), the form most
OpenAI-compatible servers (vLLM, Ollama, LM Studio, OpenAI itself) accept; `include_raw=True`
keeps the raw message so its `usage_metadata` becomes the proposal's `TokenUsage`.
Network and endpoint failures become `PlanningError` with a message naming the fix.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from workflow.errors import PlanningError
from workflow.library.catalog import Catalog
from workflow.llm import prompts
from workflow.llm.schemas import ParamsAnswer, TemplateAnswer
from workflow.model import ParamsProposal, PlanRequest, TemplateProposal, TokenUsage

AnswerT = TypeVar("AnswerT", bound=BaseModel)
MATCHES_DESCRIBED = 3  # built-in templates offered with their description; the rest by name


class LLMPlanner:
    """Asks the model for a template (or a library template's name), then for parameters."""

    def __init__(self, model: BaseChatModel, catalog: Catalog | None = None) -> None:
        self._model = model
        self._catalog = catalog

    async def propose_template(self, request: PlanRequest) -> TemplateProposal:
        library = self._library_descriptions(request.text)
        answer, usage = await self._ask(
            TemplateAnswer, prompts.TEMPLATE_SYSTEM, prompts.template_prompt(request, library)
        )
        if answer.library_template:
            families = {
                facts["family"]
                for name, facts in request.topology["devices"].items()
                if name in answer.targets
            }
            proposal = self._library_proposal(answer.library_template, answer.targets, families)
        else:
            proposal = TemplateProposal(
                name=answer.name or "custom",
                description=answer.description,
                templates=answer.templates,
                params_schema=cast(Any, answer.params_schema),
                example_params=answer.example_params,
                targets=answer.targets,
                source="llm",
            )
        proposal["tokens"] = usage
        return proposal

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        answer, usage = await self._ask(
            ParamsAnswer, prompts.PARAMS_SYSTEM, prompts.params_prompt(request, template)
        )
        return ParamsProposal(device_params=answer.device_params, tokens=usage)

    def _library_descriptions(self, text: str) -> dict[str, str]:
        """Matching built-in templates with their descriptions, the others by name only."""
        if self._catalog is None:
            return {}
        matches = {t.name: t.description for t in self._catalog.match(text)[:MATCHES_DESCRIBED]}
        return {**matches, **{n: "" for n in self._catalog.names() if n not in matches}}

    def _library_proposal(
        self, name: str, targets: list[str], families: set[str]
    ) -> TemplateProposal:
        if self._catalog is None:
            raise PlanningError(
                f"the LLM chose the built-in template {name!r}, but no library is configured"
            )
        try:
            return self._catalog.as_proposal(name, targets, families or None)
        except PlanningError as err:
            raise PlanningError(
                f"the LLM chose a built-in template that does not fit: {err}"
            ) from err

    async def _ask(
        self, schema: type[AnswerT], system: str, human: str
    ) -> tuple[AnswerT, TokenUsage]:
        runnable = self._model.with_structured_output(
            schema, method="function_calling", include_raw=True
        )
        messages = [SystemMessage(system), HumanMessage(human)]
        try:
            result = cast(dict[str, Any], await runnable.ainvoke(messages))
        except openai.APIError as err:
            raise PlanningError(describe_llm_failure(err, self._model)) from err
        usage = token_usage(result["raw"])
        if result.get("parsing_error") is not None or result.get("parsed") is None:
            raise PlanningError(
                "the LLM's answer did not match the expected format "
                f"({result.get('parsing_error') or 'no structured answer'}); "
                "try again or use a model that supports tool calling"
            )
        return cast(AnswerT, result["parsed"]), usage


def token_usage(message: Any) -> TokenUsage:
    """The message's `usage_metadata` as a TokenUsage (zeros when the endpoint sent none)."""
    meta = getattr(message, "usage_metadata", None) if isinstance(message, AIMessage) else None
    meta = meta or {}
    return TokenUsage(
        input_tokens=int(meta.get("input_tokens", 0)),
        output_tokens=int(meta.get("output_tokens", 0)),
        total_tokens=int(meta.get("total_tokens", 0)),
    )


def describe_llm_failure(err: openai.APIError, model: BaseChatModel) -> str:
    """One line naming what went wrong with the endpoint and the setting that fixes it."""
    where = f"the LLM endpoint at {getattr(model, 'openai_api_base', None) or 'OPENAI_BASE_URL'}"
    if isinstance(err, openai.APITimeoutError):
        timeout = getattr(model, "request_timeout", None)
        within = f" within {timeout:g} s" if isinstance(timeout, int | float) else ""
        return f"{where} did not answer{within}; check it is up or raise LABBOT_LLM_TIMEOUT"
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

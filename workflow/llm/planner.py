"""The LLM planner: a `workflow.ports.Planner` over any LangChain chat model.

Answers come through `StructuredOutput` (workflow/llm/output.py): tool calling, JSON-schema
`response_format` or JSON in the text, whichever the endpoint supports; their usage (measured,
or estimated when the endpoint sends none) becomes the proposal's `TokenUsage`. Network and
endpoint failures become `PlanningError` with a message naming the fix.

Parameters cost tokens only when the LLM has something to decide. The answer is `common`
values plus per-device differences (merged here); per-device lab values come from `facts` in
the template. No LLM call is made, unless the reviewer asked for a change or the last answer
was refused, when:
- the template is a built-in one and its parameters derive from the lab's facts and the
  request's `key=value` / phrase values (as with the library planner) without a gap; when
  they do not, the LLM is shown the derived values and answers only what to change;
- the template is the LLM's own and every parameter has a default (the template step already
  turned the request's values into defaults): every device takes the defaults.
Either way the parameters gate shows every device's values, and Modify asks the LLM.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar, cast

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from base.errors import PlanningError
from workflow.library.catalog import Catalog
from workflow.library.planner import NO_TOKENS, LibraryPlanner
from workflow.llm import prompts
from workflow.llm.bounded_json import STRING_CHARS
from workflow.llm.capped_text import NAME_CHARS, capped, holds_cut_text
from workflow.llm.output import StructuredOutput
from workflow.llm.schemas import ParamsAnswer, TemplateAnswer, expand_schema
from workflow.model import ParamsProposal, PlanRequest, TemplateProposal, TokenUsage
from workflow.postcheck_spec import PostChecks, parse_post_checks
from workflow.results.targets import expand_targets
from workflow.step_progress import step_progress
from workflow.templates.validation import validate_params

AnswerT = TypeVar("AnswerT", bound=BaseModel)
MATCHES_DESCRIBED = 3  # built-in templates offered (those matching the request best)


class LLMPlanner:
    """Asks the model for a template (or a library template's name), then for parameters."""

    def __init__(
        self,
        model: BaseChatModel,
        catalog: Catalog | None = None,
        output: StructuredOutput | None = None,
        hide_params: Callable[[Any], Any] | None = None,
    ) -> None:
        """`hide_params`: parameters (schemas, examples, values) as the model may read them
        (workflow.llm.secrets: a value named like a secret as its token)."""
        self._output = output or StructuredOutput(model)
        self._catalog = catalog
        self._hidden = hide_params or (lambda value: value)

    async def propose_template(self, request: PlanRequest) -> TemplateProposal:
        library = self._library_descriptions(request.text)
        human = prompts.template_prompt(self._shown(request), library)
        answer, usage = await self._ask(TemplateAnswer, prompts.TEMPLATE_SYSTEM, human, request)
        targets = expand_targets(answer.targets, request.topology)
        if not answer.templates and answer.name not in ("", "custom"):  # a built-in, by name
            families = {
                facts["family"]
                for name, facts in request.topology["devices"].items()
                if name in targets
            }
            proposal = self._library_proposal(answer.name, targets, families)
        else:
            _refuse_cut_parts(answer)
            proposal = TemplateProposal(
                name=capped(answer.name, NAME_CHARS) or "custom",
                description=capped(answer.description),
                templates=answer.templates,
                params_schema=expand_schema(answer.params_schema),
                example_params=answer.example_params,
                targets=targets,
                source="llm",
                sections=answer.sections,  # checked against the example before the gate
            )
            if answer.model_extra and "allow" in answer.model_extra:  # refused by the check
                proposal["allow"] = answer.model_extra["allow"]
            if answer.post_checks:  # as answered: the template check reports what is wrong
                checks, _ = parse_post_checks(answer.post_checks)
                proposal["post_checks"] = checks or cast(PostChecks, answer.post_checks)
        proposal["tokens"] = usage
        return proposal

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        derived, problems = self._derive(request, template)
        revising = bool(request.feedback or request.errors)
        if not revising and not problems:
            if derived is not None:
                return ParamsProposal(device_params=derived, tokens=NO_TOKENS)
            if not validate_params(template["params_schema"], {})[1]:  # all have defaults
                return ParamsProposal(
                    device_params={name: {} for name in template["targets"]}, tokens=NO_TOKENS
                )
        shown = cast(
            TemplateProposal,
            {
                **template,
                "params_schema": self._hidden(template["params_schema"]),
                "example_params": self._hidden(template["example_params"]),
            },
        )
        human = prompts.params_prompt(self._shown(request), shown, self._hidden(derived), problems)
        answer, usage = await self._ask(ParamsAnswer, prompts.PARAMS_SYSTEM, human, request)
        return ParamsProposal(
            device_params=answer.device_params(template["targets"], derived), tokens=usage
        )

    def _derive(
        self, request: PlanRequest, template: TemplateProposal
    ) -> tuple[dict[str, dict[str, Any]] | None, list[str]]:
        """A built-in template's parameters derived locally (None for the LLM's own template),
        and what they lack. The reviewer's feedback is left to the LLM."""
        if template["source"] != "library" or self._catalog is None:
            return None, []
        plain = PlanRequest(text=request.text, topology=request.topology)
        try:
            return LibraryPlanner(self._catalog).derive(plain, template)
        except PlanningError as err:  # e.g. key=value naming no parameter: the LLM sorts it out
            return {}, [str(err)]

    def _library_descriptions(self, text: str) -> dict[str, str]:
        """The built-in templates matching the request's words, with their gist.

        The others are not listed: every name costs tokens on every request, and a template
        the request's words do not match is rarely the one that does exactly what is asked.
        """
        if self._catalog is None:
            return {}
        matches = self._catalog.match(text)[:MATCHES_DESCRIBED]
        return {t.name: prompts.summary(t.description) for t in matches}

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

    def _shown(self, request: PlanRequest) -> PlanRequest:
        """`request` with its previous proposal's parameters as the model may read them."""
        return replace(request, previous=self._hidden(request.previous))

    async def _ask(
        self, schema: type[AnswerT], system: str, human: str, request: PlanRequest
    ) -> tuple[AnswerT, TokenUsage]:
        """The answer; it gets back only the values `request`'s own words typed, or its earlier
        proposal holds (a token anyone may see in a read or the audit is no key to its value:
        workflow.llm.secrets)."""
        said = "\n".join(filter(None, (request.text, request.feedback)))
        earlier = _own_values(request.previous)
        asked = await self._output.ask(schema, system, human, step_progress(), said, earlier)
        return asked.answer, asked.usage


def _own_values(previous: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The change's earlier proposal an answer may get values back from by their tokens: its
    parameters, or a template the LLM wrote (each value typed in the change, by the request or
    an earlier Modify, or the model's own words); not a saved or built-in template, whose
    defaults nobody in the change typed (their tokens stay)."""
    if previous is None or "device_params" in previous or previous.get("source") == "llm":
        return previous
    return None


def _refuse_cut_parts(answer: TemplateAnswer) -> None:
    """A template, schema or check cut on the wire is not what the model meant: refused (a
    name or description cut is only shortened, with its note)."""
    parts = answer.model_dump(exclude={"name", "description"})
    if holds_cut_text(parts):
        raise PlanningError(
            f"the LLM wrote a template part longer than {STRING_CHARS:,} characters, cut "
            "there; ask for a smaller change"
        )

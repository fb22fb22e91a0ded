"""`labbot templates save|show|history|diff|stats` on the command line.

`save FILE` takes a YAML or JSON file shaped like a built-in template (description, templates,
params_schema, example_params, sections; optional name, derive, phrases, post_checks) and stores
it as the next version of its name after the checks a template gate runs: syntax, variables, the
example rendering, its declared sections and the deny-list, then the template test (the example
pushed to a simulated device of each vendor family labsim knows, where each line lands checked
against the sections). A file that fails them stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import yaml

from adapters.chat import Actor, Message
from base.errors import ConfigError, TemplateError
from bot import messages, template_view
from bot.audit_anchor import secret_mask
from bot.commands.parsing import CommandError
from bot.commands.templates import save, templates_reply
from bot.settings import Settings
from labsim import demo_topology
from labsim.trial import twin_run
from labsim.vendors import platform_by_name
from storage.db import make_engine, upgrade_database
from storage.templates import SaveResult, TemplateDraft, TemplateStore, name_problem
from workflow.devices.diffing import landed_paths
from workflow.landing import outside_places
from workflow.library.catalog import load_catalog
from workflow.library.derive import DERIVERS
from workflow.model import TemplateProposal
from workflow.postchecks.spec import parse_post_checks
from workflow.rendering import render
from workflow.safety import DenyList
from workflow.sections import example_section_errors
from workflow.template_check import validate_template
from workflow.template_facts import example_facts
from workflow.validation import validate_params

REQUIRED = ("description", "templates", "params_schema", "example_params", "sections")
CLI_ACTOR = Actor(id="cli", name="cli")


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[TemplateStore]:
    await upgrade_database(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        yield TemplateStore(engine)
    finally:
        await engine.dispose()


def read_template_file(path: Path, name: str | None) -> tuple[str, dict[str, Any]]:
    """(name, document) of a YAML/JSON template file, or ConfigError naming what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{str(path)!r} is not valid YAML/JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{str(path)!r} must hold a mapping with {', '.join(REQUIRED)}")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise ConfigError(f"{str(path)!r} lacks {', '.join(missing)}")
    chosen = (name or str(data.get("name") or path.stem)).casefold().replace("-", "_")
    problem = name_problem(chosen) or _reserved(chosen)
    if problem:
        raise ConfigError(problem)
    unknown = [d for d in str(data.get("derive", "none")).split("+") if d not in DERIVERS]
    if unknown:
        raise ConfigError(f"derive {unknown[0]!r} is unknown; use one of {', '.join(DERIVERS)}")
    return chosen, data


def _reserved(name: str) -> str | None:
    if name in load_catalog().names():
        return messages.SAVE_BUILTIN.format(name=name)
    return None


def template_problems(data: dict[str, Any], *, test: bool = True) -> list[str]:
    """What a template gate would refuse, then (`test`) what the simulated devices refuse."""
    proposal = TemplateProposal(
        name="file",
        description=str(data["description"]),
        templates=data["templates"],
        params_schema=data["params_schema"],
        example_params=data["example_params"],
        targets=[],
        source="saved",
        sections=data["sections"],
    )
    if data.get("post_checks"):
        proposal["post_checks"] = data["post_checks"]
    if "allow" in data:
        proposal["allow"] = data["allow"]
    errors = validate_template(proposal, deny=DenyList())
    if errors:
        return errors
    params, _ = validate_params(proposal["params_schema"], proposal["example_params"])
    examples = {
        family: render(source, params, facts=example_facts(family))
        for family, source in sorted(proposal["templates"].items())
    }
    errors = example_section_errors(proposal, examples)[1]
    if errors or not test:
        return errors
    problems = []
    for family, lines in examples.items():
        running = _sim_config(family)
        if running is None:
            continue
        run = twin_run(f"sim-{family}", family, running, lines)
        problems += [f"template test ({family}): {complaint}" for complaint in run.refused]
        landed = landed_paths(run.before, run.after, family)
        problems += [
            f"template test ({family}): `{place}` lands outside the sections"
            for place in outside_places(landed, proposal["sections"])
        ]
    return problems


def _sim_config(family: str) -> str | None:
    """The boot configuration of the demo lab's device of `family` (None: no simulator)."""
    for spec in demo_topology(2).devices:
        if spec.platform == family:
            return platform_by_name(family).initial_config(spec)
    return None


async def save_file(
    settings: Settings, path: Path, *, name: str | None, version: int | None, user: str, test: bool
) -> SaveResult:
    chosen, data = read_template_file(path, name)
    problems = template_problems(data, test=test)
    if problems:
        listed = "\n".join(f"  - {p}" for p in problems)
        raise TemplateError(f"{chosen} was not saved:\n{listed}")
    draft = TemplateDraft(
        name=chosen,
        description=str(data["description"]),
        templates=data["templates"],
        params_schema=data["params_schema"],
        example_params=data["example_params"],
        derive=str(data.get("derive", "none")),
        phrases=data.get("phrases") or {},
        saved_by_id=f"cli:{user}",
        saved_by_name=user,
        post_checks=parse_post_checks(data.get("post_checks"))[0],
        sections=data["sections"],
        allow=data.get("allow") or (),
    )
    async with open_store(settings) as store:
        try:
            return await save(store, draft, version)
        except CommandError as exc:
            raise TemplateError(str(exc)) from None


async def library_reply(settings: Settings, args: tuple[str, ...]) -> Message:
    """`templates …` as in chat, without a channel (no pins)."""
    async with open_store(settings) as store:
        try:
            mask = secret_mask(settings)
            return await templates_reply(load_catalog(), store, args, "", CLI_ACTOR, mask)
        except CommandError as exc:
            raise TemplateError(str(exc)) from None


async def stats_json(settings: Settings) -> str:
    async with open_store(settings) as store:
        return template_view.stats_json(await store.stats())

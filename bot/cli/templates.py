"""`labbot templates save|show|history|diff|stats` on the command line.

`save FILE` takes a YAML or JSON file shaped like a built-in template (description, templates,
params_schema, example_params, sections; optional name, derive, phrases, post_checks) and stores
it as the next version of its name after the assessment a template gate runs
(workflow.phases.template_assessment: syntax, variables, the example rendering, its declared
sections
and the deny-list, then the template test on the graph's twins, where each example line lands
checked against the sections), on a made-up lab whose routers boot as labsim's do. A file that
fails it, or whose example a twin refuses, stores nothing.
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
from bot import messages
from bot.commands.parsing import CommandError
from bot.commands.templates import save, templates_reply
from bot.records.audit_anchor import secret_mask
from bot.records.storage_key import storage_keys
from bot.settings import Settings
from bot.views import template as template_view
from labsim import demo_topology
from labsim.vendors import platform_by_name
from storage.db import make_engine, upgrade_database
from storage.template_store import SaveResult, TemplateDraft, TemplateStore, name_problem
from workflow.library.catalog import load_catalog
from workflow.library.derive import DERIVERS
from workflow.model import TemplateProposal
from workflow.phases.template_assessment import assess_template, refused_example_lines
from workflow.ports import ConfigTrial
from workflow.postcheck_spec import parse_post_checks
from workflow.safety.deny import DenyList
from workflow.templates.facts import example_lab, example_targets

REQUIRED = ("description", "templates", "params_schema", "example_params", "sections")
CLI_ACTOR = Actor(id="cli", name="cli")


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[TemplateStore]:
    keys = storage_keys(settings)  # before the database: a missing key is one line
    await upgrade_database(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        yield TemplateStore(engine, keys=keys)
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


async def template_problems(
    data: dict[str, Any], deny_list: DenyList, trial: ConfigTrial | None, seconds: float
) -> list[str]:
    """What the template gate would refuse (the graph's own assessment, on a made-up lab whose
    routers start from the simulated ones' boot configurations), then the example lines its
    twins refused: a file is stored with no reviewer to read such complaints at a gate."""
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
    lab = example_lab({family: _sim_config(family) for family in proposal["templates"]})
    proposal["targets"] = example_targets(lab)
    assessed = await assess_template(proposal, lab, deny_list, trial, seconds)
    return assessed.errors or refused_example_lines(assessed.tests or {})


def _sim_config(family: str) -> str:
    """The boot configuration of the demo lab's device of `family` ("" when none is simulated)."""
    for spec in demo_topology(2).devices:
        if spec.platform == family:
            return platform_by_name(family).initial_config(spec)
    return ""


async def save_file(
    settings: Settings, path: Path, *, name: str | None, version: int | None, user: str, test: bool
) -> SaveResult:
    chosen, data = read_template_file(path, name)
    from bot.runtime.twins import (
        template_twins,  # FRR's twin drives vtysh through netmiko: only here
    )

    trial = template_twins() if test else None
    deny_list = DenyList(settings.deny_extra)
    problems = await template_problems(data, deny_list, trial, settings.twin_seconds)
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

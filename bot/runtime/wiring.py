"""Build labbot from settings: storage, planner, device gateway, workflow, decision service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.chat import ChatAdapter, HomePublisher
from base.errors import ConfigError
from base.masking import SecretMask
from base.vocabulary import utc_now
from bot.commands.context import Commands
from bot.commands.read_budget import ChannelBudget
from bot.commands.reads import ReadCommand, ReadLimits
from bot.commands.registry import chat_commands
from bot.decisions.metrics import Metrics, process_metrics
from bot.decisions.push_booking import PushesInFlight
from bot.decisions.reporter import ChangeReporter
from bot.decisions.requests import RequestDesk
from bot.decisions.service import DecisionService
from bot.policy.agent_principals import NO_AGENTS, Agent, Agents
from bot.policy.approvers import policy_from
from bot.policy.authorize import Authorizer
from bot.policy.facts import NoDirectory, People, directory_of
from bot.policy.request_limits import RequestLimits
from bot.policy.rules import Policy
from bot.ports import ChangeRunner, ThreadLock
from bot.records.audit_anchor import audit_chain_from, secret_mask
from bot.records.storage_key import refuse_a_wrong_key, storage_keys
from bot.runtime.twins import lab_twins, template_twins
from bot.settings import Settings, secret_value
from bot.topology.thread_pictures import LabPictures
from bot.views.failure import failure_text
from bot.views.home_board import HomeBoard
from bot.views.read import OutputBounds, read_refusal
from bot.views.redact import ScrubbedAdapter, Scrubber
from storage.audit_chain import AuditChain
from storage.audit_head import database_name
from storage.audit_store import AuditStore
from storage.checkpointer import SQLAlchemySaver
from storage.config_backups import ConfigBackupStore
from storage.encryption import StorageKeys, encrypted_serde
from storage.locks import DeviceLockStore, thread_lock
from storage.ports import DecisionRecords
from storage.read_budget_store import ReadBudgetStore
from storage.template_store import TemplateStore
from workflow.api import ChangeWorkflow
from workflow.devices.gateway import NornirGateway
from workflow.library.catalog import load_catalog
from workflow.library.planner import LibraryPlanner
from workflow.library.saved import SavedTemplatePlanner
from workflow.nodes.change import Nodes
from workflow.options import WorkflowOptions
from workflow.ports import DeviceGateway, Inventory, LabReader, Planner
from workflow.safety.deny import DenyList
from workflow.templates.render_pool import RenderPool

__all__ = [
    "Runtime",
    "agents_from",
    "llm_options",
    "make_inventory",
    "open_runtime",
    "scrubber_from",
]

NO_INVENTORY = (
    "no devices configured: set GNS3_URL and GNS3_PROJECT, or LABBOT_INVENTORY "
    "(a Nornir hosts.yaml); `labbot demo` brings its own simulated lab"
)


@dataclass(frozen=True)
class Runtime:
    service: DecisionService
    workflow: ChangeWorkflow
    audit: AuditStore
    locks: DeviceLockStore
    pushes: PushesInFlight  # the pushes running now (a stop records those it cuts short)
    templates: TemplateStore | None = None
    pictures: LabPictures | None = None  # the lab's pictures (the `topology` command's)


SECRET_SETTINGS = (
    "LABBOT_DEVICE_PASSWORD",
    "LABBOT_DEVICE_SECRET",
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "MATRIX_ACCESS_TOKEN",
    "MATRIX_PASSWORD",
    "OPENAI_API_KEY",
    "GNS3_PASSWORD",
)


def scrubber_from(settings: Settings) -> Scrubber:
    """The credentials labbot holds, to be kept out of chat, logs and audit rows."""
    fields = {f.validation_alias: name for name, f in Settings.model_fields.items()}
    values = [(alias, secret_value(getattr(settings, fields[alias]))) for alias in SECRET_SETTINGS]
    return Scrubber.of(values)


def limits_from(settings: Settings) -> RequestLimits:
    return RequestLimits(
        max_request_chars=settings.max_request_chars,
        max_open_per_user=settings.max_open_per_user,
        max_open_per_channel=settings.max_open_per_channel,
        max_open=settings.max_open,
        window_seconds=settings.gate_ttl_seconds,
    )


def read_limits(settings: Settings) -> ReadLimits:
    return ReadLimits(
        max_targets=settings.max_targets,
        per_minute=settings.max_reads_per_minute,
        output=OutputBounds(
            inline_chars=settings.read_inline_chars, max_chars=settings.read_max_chars
        ),
    )


def make_reads(
    settings: Settings, lab: LabReader, workers: RenderPool | None, engine: AsyncEngine
) -> ReadCommand:
    """The read commands, their output presented in the worker processes (else a thread),
    within the channel's read budget on `engine`; with an LLM configured, free questions are
    answered by reads too."""
    limits = read_limits(settings)
    budget = ChannelBudget(ReadBudgetStore(engine), settings.read_channel_budget)
    offload = workers.run if workers is not None else asyncio.to_thread
    diagnosis = None
    if settings.openai_api_key is not None:
        from workflow.llm import make_chat_model
        from workflow.reads.diagnose import LabDiagnosis

        options = llm_options(settings)
        model = make_chat_model(**options)
        diagnosis = LabDiagnosis(
            model, options["secrets"], why_refused=read_refusal, output=settings.llm_output
        )
    return ReadCommand(lab, budget, limits, diagnosis, offload)


def llm_options(settings: Settings) -> dict[str, Any]:
    """How to reach the LLM endpoint (`make_chat_model`'s arguments); needs OPENAI_API_KEY.
    What is sent is masked: secret values by the rules, and the credentials labbot holds."""
    assert settings.openai_api_key is not None
    from workflow.llm import LLMSecrets

    credentials = scrubber_from(settings).secrets.values()
    return {
        "api_key": settings.openai_api_key.get_secret_value(),
        "base_url": settings.openai_base_url,
        "model": settings.llm_model,
        "timeout": settings.llm_timeout_seconds,
        "secrets": LLMSecrets(secret_mask(settings), credentials),
    }


def agents_from(settings: Settings) -> Agents:
    """The agents LABBOT_MCP_AGENTS names (the settings checked each: a principal, hashes)."""
    named = settings.mcp_agents.items()
    return Agents.of(Agent(name, words[0], tuple(words[1:])) for name, words in named)


def make_planner(settings: Settings) -> Planner:
    """The LLM planner when an API key is set, else the built-in template library."""
    if settings.openai_api_key is None:
        return LibraryPlanner(load_catalog())
    from workflow.llm import make_llm_planner

    return make_llm_planner(
        **llm_options(settings), output=settings.llm_output, max_tokens=settings.llm_max_tokens
    )


def with_saved_templates(planner: Planner, templates: TemplateStore) -> Planner:
    """`planner` behind the team's library: saved and combined templates cost no template
    tokens; an LLM planner is still asked for parameters the lab does not give."""
    llm = None if isinstance(planner, LibraryPlanner) else planner
    return SavedTemplatePlanner(planner, templates, llm=llm)


def make_inventory(settings: Settings) -> Inventory:
    if settings.gns3_url:
        from workflow.devices.inventories.gns3 import GNS3Inventory

        if not settings.gns3_project:
            raise ConfigError("GNS3_PROJECT: set the GNS3 project name or id to manage")
        return GNS3Inventory(
            settings.gns3_url,
            project=settings.gns3_project,
            user=settings.gns3_user,
            password=secret_value(settings.gns3_password),
            device_types=settings.device_types,
        )
    if settings.inventory:
        from workflow.devices.inventories.containerlab import ContainerlabInventory, lab_directory
        from workflow.devices.inventories.static import StaticInventory

        deployed = lab_directory(settings.inventory)
        if deployed is not None:
            return ContainerlabInventory(deployed)
        return StaticInventory(settings.inventory, device_types=settings.device_types)
    raise ConfigError(NO_INVENTORY)


def make_gateway(
    settings: Settings, inventory: Inventory, backups: ConfigBackupStore, locks: DeviceLockStore
) -> DeviceGateway:
    return NornirGateway(
        inventory,
        username=settings.device_username or "",
        password=secret_value(settings.device_password) or "",
        secret=secret_value(settings.device_secret) or "",
        locks=locks,
        backups=backups,
        say=failure_text,
        connect_timeout=settings.connect_timeout_seconds,
        read_timeout=settings.read_timeout_seconds,
        lock_seconds=settings.device_lock_seconds,
        sessions=settings.device_sessions,
    )


def workflow_options(settings: Settings) -> WorkflowOptions:
    """The settings the workflow's nodes read, each from the setting of its name (an option
    that names no setting fails here, at start)."""
    named = {name: getattr(settings, name) for name in WorkflowOptions.model_fields}
    return WorkflowOptions.model_validate(named)


def make_renderer(settings: Settings) -> RenderPool | None:
    """Worker processes for rendering (LABBOT_RENDER_WORKERS=0: render in the bot's process)."""
    if settings.render_workers == 0:
        return None
    return RenderPool(
        workers=settings.render_workers,
        cpu_seconds=settings.render_cpu_seconds,
        memory_mb=settings.render_memory_mb,
    )


@asynccontextmanager
async def _closing(renderer: RenderPool | None) -> AsyncIterator[None]:
    try:
        yield
    finally:
        if renderer is not None:
            await asyncio.to_thread(renderer.close)


@dataclass(frozen=True)
class Shared:
    """What every lab's runtime shares in one process: the database (its checkpointer), the
    keys sealing device text, the audit chain and the render workers."""

    saver: SQLAlchemySaver
    keys: StorageKeys
    chain: AuditChain
    renderer: RenderPool | None


@asynccontextmanager
async def open_shared(settings: Settings, adapter: ChatAdapter) -> AsyncIterator[Shared]:
    """The configured database and what goes with it, closed on exit."""
    keys = storage_keys(settings)  # before anything starts: a missing key is one line
    renderer = make_renderer(settings)
    async with (
        SQLAlchemySaver.from_url(settings.database_url, serde=encrypted_serde(keys)) as saver,
        _closing(renderer),
    ):
        await refuse_a_wrong_key(saver.engine, keys)  # console, agents and serve alike
        chain = audit_chain_from(settings, await database_name(saver.engine), keys, adapter)
        yield Shared(saver, keys, chain, renderer)


@asynccontextmanager
async def open_runtime(
    settings: Settings,
    adapter: ChatAdapter,
    *,
    inventory: Inventory | None = None,
    planner: Planner | None = None,
    gateway: DeviceGateway | None = None,
    lab_name: str = "",
    policy: Policy | None = None,
) -> AsyncIterator[Runtime]:
    """Everything a chat adapter needs, on the configured database, closed on exit. `lab_name`
    and `policy`: one lab of the labs file (`lab_runtime`'s)."""
    async with open_shared(settings, adapter) as shared:
        yield lab_runtime(
            settings,
            adapter,
            shared,
            inventory=inventory,
            planner=planner,
            gateway=gateway,
            lab_name=lab_name,
            policy=policy,
        )


def lab_runtime(
    settings: Settings,
    adapter: ChatAdapter,
    shared: Shared,
    *,
    inventory: Inventory | None = None,
    planner: Planner | None = None,
    gateway: DeviceGateway | None = None,
    lab_name: str = "",
    policy: Policy | None = None,
) -> Runtime:
    """One lab's runtime on `shared`: its inventory and gateway, its policy and limits (from
    `settings`, the lab's own), its decision service. `lab_name`: the labs file's name for it
    (its devices' locks and every row it writes carry it); "": the settings' one lab. `policy`:
    its rules when more than the settings say (a pod's students and the other pods')."""
    saver, keys, chain, renderer = shared.saver, shared.keys, shared.chain, shared.renderer
    locks = DeviceLockStore(saver.engine, lab_name)
    if gateway is None:
        backups = ConfigBackupStore(saver.engine, keys)
        inventory = inventory or make_inventory(settings)
        if lab_name:
            inventory.lab = lab_name
        gateway = make_gateway(settings, inventory, backups, locks)
    lab = inventory.lab if inventory is not None else lab_name
    templates = TemplateStore(saver.engine, chain)
    nodes = Nodes(
        planner=with_saved_templates(planner or make_planner(settings), templates),
        gateway=gateway,
        deny_list=DenyList(settings.deny_extra),
        options=workflow_options(settings),
        saved=templates,
        trial=template_twins(),
        lab_twin=lab_twins(settings),
        renderer=renderer,
        preview_locks=locks if settings.lock_from_preview else None,
    )
    workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
    scrub, mask = scrubber_from(settings), secret_mask(settings)
    audit = AuditStore(saver.engine, scrub=scrub, chain=chain, lab=lab)
    policy = policy or policy_from(settings)
    pictures = LabPictures(gateway)
    reads = make_reads(settings, gateway, renderer, saver.engine)
    handlers = chat_commands(load_catalog(), templates, reads)
    pushes = PushesInFlight()
    service = decision_service(
        workflow=workflow,
        audit=audit,
        adapter=ScrubbedAdapter(adapter, scrub, mask),
        policy=policy,
        thread_lock=partial(thread_lock, saver.engine),
        people=People(policy, directory_of(adapter)),
        limits=limits_from(settings),
        commands=Commands(handlers, workflow, audit, templates, pictures),
        templates=templates,
        pictures=pictures,
        home=adapter if isinstance(adapter, HomePublisher) else None,
        mask=mask,
        pushes=pushes,
        agents=agents_from(settings),
        lab=lab,
    )
    return Runtime(service, workflow, audit, locks, pushes, templates, pictures)


def decision_service(
    *,
    workflow: ChangeRunner,
    audit: DecisionRecords,
    adapter: ChatAdapter,
    policy: Policy,
    thread_lock: ThreadLock,
    people: People | None = None,  # facts about people and places (default: the policy alone)
    limits: RequestLimits | None = None,
    commands: Commands | None = None,  # the chat commands and the stores they read
    templates: TemplateStore | None = None,  # the team's template library (saves, uses)
    pictures: LabPictures | None = None,  # topology pictures in the thread
    home: HomePublisher | None = None,  # the platform's per-person home page (Slack App Home)
    mask: SecretMask | None = None,  # secret values as shown (default: a random key)
    pushes: PushesInFlight | None = None,  # the pushes running now, for a stop
    clock: Callable[[], datetime] = utc_now,
    metrics: Metrics | None = None,
    agents: Agents = NO_AGENTS,  # AI agents (MCP) and the people they act for
    lab: str = "",  # the lab this bot serves, as its inventory names it ("": not known)
) -> DecisionService:
    """The decision service and the collaborators it is given: who may do what (authorizer),
    what is shown and booked (reporter), the home pages, and the request desk."""
    limits, mask = limits or RequestLimits(), mask or SecretMask.random()
    metrics = metrics or process_metrics()
    people = people or People(policy, NoDirectory())
    authorizer = Authorizer(policy, people, audit, limits, agents, lab)
    board = None
    if home is not None:
        board = HomeBoard(home, adapter.platform, workflow, audit, authorizer, clock, mask)
    reporter = ChangeReporter(
        adapter,
        audit,
        metrics,
        templates,
        clock,
        pushes or PushesInFlight(),
        pictures=pictures,
        mask=mask,
        on_gates_changed=board.refresh if board is not None else None,
    )
    desk = RequestDesk(workflow, audit, reporter, authorizer, thread_lock, clock, limits, commands)
    return DecisionService(
        workflow=workflow,
        audit=audit,
        policy=policy,
        thread_lock=thread_lock,
        authorizer=authorizer,
        reporter=reporter,
        requests=desk,
        home_board=board,
        clock=clock,
        metrics=metrics,
    )

"""The `labbot` command line: demo, console, serve, mcp, lab, pending, rollback, audit,
templates, policy, llm, matrix, db, check, health."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from base.errors import LabbotError
from bot import messages
from bot.cli.llm import llm_app
from bot.cli.look import plain_flags, print_version
from bot.cli.matrix import matrix_app
from bot.cli.templates_group import TemplatesGroup

# Each command imports what it runs when it runs (the workflow, the drivers, the database):
# `labbot --help` and the light commands start without them (bench/cli_startup.py).
if TYPE_CHECKING:
    from bot.settings import Settings

__all__ = ["main"]

app = typer.Typer(
    help="labbot: change your network lab safely from chat.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
audit_app = typer.Typer(help="Who confirmed which change.", invoke_without_command=True)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
templates_app = typer.Typer(
    help="The template library: built-in and saved templates.",
    invoke_without_command=True,
    cls=TemplatesGroup,
)
app.add_typer(audit_app, name="audit")
app.add_typer(db_app, name="db")
app.add_typer(templates_app, name="templates")
app.add_typer(matrix_app, name="matrix")
app.add_typer(llm_app, name="llm")
policy_app = typer.Typer(help="Who may approve what.", no_args_is_help=True)
app.add_typer(policy_app, name="policy")
mcp_app = typer.Typer(
    help="The MCP server for AI agents (stdio): reads, templates, change requests and their "
    "status; agents never decide.",
    invoke_without_command=True,
)
app.add_typer(mcp_app, name="mcp")

out = Console()


@app.callback()
def labbot(
    _version: Annotated[
        bool,
        typer.Option(
            "--version", callback=print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """labbot: change your network lab safely from chat."""


def _settings(**overrides: object) -> Settings:
    from bot.settings import load_settings

    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


@app.command()
def demo(
    as_user: Annotated[str, typer.Option("--as", help="Your user name in the chat.")] = "alice",
    script: Annotated[
        Path | None, typer.Option(help="Read the chat from FILE instead of the keyboard.")
    ] = None,
    devices: Annotated[int, typer.Option(help="Routers in the simulated lab.")] = 3,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help="Where the demo keeps its records [default: ./labbot-demo, apart from your "
            "lab's LABBOT_DATA_DIR]."
        ),
    ] = None,
) -> None:
    """Simulated lab + console chat + SQLite: try labbot without any account."""
    from bot.cli.demo import run_demo
    from bot.settings import DEMO_DATA_DIR

    settings = _settings(data_dir=data_dir or DEMO_DATA_DIR)
    asyncio.run(run_demo(settings, user=as_user, script=script, devices=devices))


@app.command()
def lab(
    topology_file: Annotated[
        Path | None,
        typer.Argument(
            metavar="TOPOLOGY",
            help="Topology YAML file (with --frr also a containerlab *.clab.yml).",
        ),
    ] = None,
    frr: Annotated[
        bool, typer.Option("--frr", help="Real FRRouting routers in network namespaces (root).")
    ] = False,
    devices: Annotated[
        int | None, typer.Option(help="Routers (simulated: 3; with --frr: a chain of N).")
    ] = None,
    topology: Annotated[Path | None, typer.Option(help="Topology YAML file.")] = None,
    inventory: Annotated[
        Path | None, typer.Option(help="Also write a Nornir hosts.yaml for LABBOT_INVENTORY.")
    ] = None,
    sweep: Annotated[
        bool,
        typer.Option(help="With --frr: only remove what killed (kill -9) FRR labs left, and exit."),
    ] = False,
    ssh: Annotated[
        bool,
        typer.Option(help="With --frr: SSH logins landing in vtysh too (inventory platform frr)."),
    ] = False,
    kernel_addresses: Annotated[
        bool,
        typer.Option(
            help="With --frr: addresses set with `ip addr` in the namespaces, none in FRR's config."
        ),
    ] = False,
    management: Annotated[
        bool,
        typer.Option(
            help="With --frr: SSH on port 22 of each router's own 127.X.Y.N address, login "
            "admin/admin landing in vtysh (as containerlab's frr kind)."
        ),
    ] = False,
) -> None:
    """Run a lab on 127.0.0.1 until Ctrl-C: simulated, or with --frr real FRR routers."""
    path = topology_file or topology
    if inventory is not None:
        from bot.cli.writable_paths import writable

        writable(inventory, "--inventory")
    frr_only = {"--sweep": sweep, "--ssh": ssh, "--kernel-addresses": kernel_addresses}
    frr_only["--management"] = management
    if any(frr_only.values()) and not frr:
        flag = next(name for name, given in frr_only.items() if given)
        raise typer.BadParameter(f"only FRR labs have it: use --frr {flag}", param_hint=flag)
    if frr and sweep:
        from frrlab import sweep_frr

        typer.echo(sweep_frr().line())
        return
    if frr:
        from frrlab import serve_frr

        serve_frr(
            path or devices,
            inventory=inventory,
            ssh=ssh,
            management=management,
            kernel_addresses=kernel_addresses,
        )
        return
    from labsim import serve

    asyncio.run(serve(path or devices or 3, inventory=inventory))


@audit_app.callback()
def audit(
    ctx: typer.Context,
    change: Annotated[str | None, typer.Option(help="Only this change id.")] = None,
    user: Annotated[str | None, typer.Option(help="Only this user (id or name).")] = None,
    device: Annotated[str | None, typer.Option(help="Only pushes to this device.")] = None,
    since: Annotated[datetime | None, typer.Option(help="From this time (UTC).")] = None,
    until: Annotated[datetime | None, typer.Option(help="Until this time (UTC).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    wide: Annotated[bool, typer.Option("--wide", help="The table with every field.")] = False,
    lab: Annotated[
        str | None, typer.Option(help="Only this lab's rows (a lab of LABBOT_LABS).")
    ] = None,
) -> None:
    """List audit records (requests, decisions, refusals, pushes)."""
    if ctx.invoked_subcommand is not None:
        return
    from bot.cli.audit import print_audit

    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("use table, csv or json", param_hint="--format")
    asyncio.run(
        print_audit(_settings(), change, user, device, since, until, fmt, wide=wide, lab=lab)  # type: ignore[arg-type]
    )


@audit_app.command("verify")
def audit_verify(
    head: Annotated[
        str | None,
        typer.Option(help="a head the bot posted (ROWS:HASH) instead of the head file"),
    ] = None,
) -> None:
    """Check the audit hash chain and its anchored head; name the first broken row."""
    from bot.cli.audit import verify_audit

    if not asyncio.run(verify_audit(_settings(), head)):
        raise typer.Exit(1)


@audit_app.command("anchor")
def audit_anchor() -> None:
    """Anchor this database's audit chain: write its head to the head file (after checking it)."""
    from bot.cli.audit import anchor_audit

    if not asyncio.run(anchor_audit(_settings())):
        raise typer.Exit(1)


@audit_app.command("report")
def audit_report(
    output: Annotated[Path, typer.Option("-o", "--output", help="The HTML file to write.")],
    since: Annotated[datetime | None, typer.Option(help="From this time (UTC).")] = None,
    change: Annotated[str | None, typer.Option(help="Only this change id.")] = None,
    lab: Annotated[
        str | None, typer.Option(help="Only this lab's changes (a lab of LABBOT_LABS).")
    ] = None,
) -> None:
    """One self-contained HTML report (timeline, decisions, diffs, pushes, chain, charts)."""
    from bot.cli.audit import report_written, write_report

    settings = _settings()
    report = asyncio.run(write_report(settings, output, since, change, lab))
    out.print(report_written(settings, output, report), highlight=False, soft_wrap=True)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database schema to the newest revision."""
    from storage.db import upgrade_database

    settings = _settings()
    revision = asyncio.run(upgrade_database(settings.database_url))
    out.print(f"database at revision {revision}")


@db_app.command("new-key")
def db_new_key() -> None:
    """Print a fresh LABBOT_STORAGE_KEY (the key sealing device text at rest)."""
    from storage.encryption import new_key

    out.print(new_key(), highlight=False)


@db_app.command("reseal")
def db_reseal() -> None:
    """Seal stored device text again under the first LABBOT_STORAGE_KEY (after a rotation),
    and seal what an older release stored in clear."""
    from bot.records.storage_key import reseal_database

    counts = asyncio.run(reseal_database(_settings()))
    out.print("resealed: " + ", ".join(f"{table} {rows}" for table, rows in counts.items()))


@templates_app.callback()
def templates(ctx: typer.Context) -> None:
    """List the library (`labbot templates NAME[@V]` shows one template)."""
    if ctx.invoked_subcommand is None:
        _print_library()


def _print_library(*args: str) -> None:
    from adapters.console.render import render_message
    from bot.cli.templates import library_reply

    out.print(render_message(asyncio.run(library_reply(_settings(), args))))


@templates_app.command("show")
def templates_show(ref: Annotated[str, typer.Argument(help="NAME or NAME@VERSION.")]) -> None:
    """One template: built-in, or a saved version (the latest unless @VERSION)."""
    _print_library(ref)


@templates_app.command("save")
def templates_save(
    path: Annotated[Path, typer.Argument(help="YAML or JSON file shaped like a template.")],
    name: Annotated[str | None, typer.Option(help="Name (default: the file's)")] = None,
    version: Annotated[int | None, typer.Option(help="Refuse unless this is the next")] = None,
    as_user: Annotated[str, typer.Option("--as", help="Who saves it.")] = "cli",
    test: Annotated[bool, typer.Option(help="Run the template test on simulated devices")] = True,
) -> None:
    """Save FILE as the next version of its name, after the template checks and test."""
    from bot.cli.templates import save_file

    result = asyncio.run(
        save_file(_settings(), path, name=name, version=version, user=as_user, test=test)
    )
    saved = result.template
    what = "saved as" if result.created else "already saved as"
    out.print(f"{what} {saved.name}@{saved.version} sha256 {saved.sha256}", soft_wrap=True)


@templates_app.command("history")
def templates_history(name: Annotated[str, typer.Argument(help="A saved template.")]) -> None:
    """Every version of a saved template, oldest first."""
    _print_library("history", name)


@templates_app.command("diff")
def templates_diff(
    refs: Annotated[list[str], typer.Argument(help="NAME@A NAME@B, NAME A B, or NAME.")],
) -> None:
    """What changed between two versions (default: the last two)."""
    _print_library("diff", *refs)


@templates_app.command("stats")
def templates_stats(
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
) -> None:
    """Uses per template and version, push success per device, tokens spent and saved."""
    if fmt == "json":
        from bot.cli.templates import stats_json

        out.print_json(asyncio.run(stats_json(_settings())))
        return
    if fmt != "table":
        raise typer.BadParameter("use table or json", param_hint="--format")
    _print_library("stats")


@policy_app.command("check")
def policy_check(
    user: Annotated[
        str, typer.Argument(help="A user id (U0123, @alice:example.org, console:bob).")
    ],
    devices: Annotated[list[str], typer.Argument(help="Devices a change would target.")],
    channel: Annotated[str, typer.Option(help="Where they would decide.")] = "",
    direct: Annotated[bool, typer.Option(help="Deciding in a direct message.")] = False,
    group: Annotated[
        list[str] | None, typer.Option(help="A user group they are in (asked of Slack if set).")
    ] = None,
    power: Annotated[int, typer.Option(help="Their Matrix power level in the room.")] = 0,
) -> None:
    """Explain who may approve changes to DEVICES, and why (the configured policy)."""
    from bot.cli.policy_check import check_lines

    settings = _settings()
    lines = asyncio.run(
        check_lines(
            settings, user, devices, channel=channel, direct=direct, groups=group or [], power=power
        )
    )
    for line in lines:
        out.print(line, highlight=False, soft_wrap=True)


@policy_app.command("deny")
def policy_deny(
    platform: Annotated[
        str, typer.Argument(help="ios, eos, frr, junos, vrp (or a platform: cisco_ios, …).")
    ] = "ios",
) -> None:
    """Show the deny-list policy of a platform, by family (the rule ids `allow:` may name)."""
    from bot.views.deny import deny_lines

    for line in deny_lines(platform, _settings().deny_extra):
        out.print(line, highlight=False, soft_wrap=True, markup=False)


@app.command()
def serve(
    http: Annotated[bool, typer.Option(help="Slack HTTP mode instead of Socket Mode.")] = False,
    port: Annotated[int, typer.Option(help="HTTP port (with --http).")] = 3000,
    host: Annotated[str, typer.Option(help="HTTP bind address (with --http).")] = "127.0.0.1",
) -> None:
    """Run the configured chat adapters (Slack, Matrix) until stopped."""
    from bot.cli.serve import run_serve

    asyncio.run(run_serve(_settings(), http=http, host=host, port=port))


@mcp_app.callback()
def mcp(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option(help="The agent served (default: LABBOT_MCP_AGENT).")
    ] = None,
) -> None:
    """Serve one AI agent over stdin/stdout (its client starts this command)."""
    if ctx.invoked_subcommand is not None:
        return
    from bot.cli.mcp import run_mcp_stdio

    asyncio.run(run_mcp_stdio(_settings(mcp_agent=agent)))


@mcp_app.command("token")
def mcp_token(
    name: Annotated[str, typer.Argument(help="The agent's name (claude-code, copilot, …).")],
    principal: Annotated[
        str, typer.Option(help="The person it acts for (U0123, @alice:example.org, console:bob).")
    ],
) -> None:
    """Print a new token for an agent and the LABBOT_MCP_AGENTS entry holding only its hash."""
    from bot.policy.agent_principals import new_token, token_hash

    token = new_token()
    # each on one line however narrow the terminal or pipe: they are copied whole
    out.print(
        f"token (give it to the agent, it is not kept): {token}", soft_wrap=True, highlight=False
    )
    out.print(
        f"LABBOT_MCP_AGENTS entry: {name}={principal} {token_hash(token)}",
        soft_wrap=True,
        highlight=False,
    )


@app.command()
def check(
    as_json: Annotated[bool, typer.Option("--json", help="The findings as JSON.")] = False,
    lab: Annotated[
        str | None,
        typer.Option(help="Only this lab of LABBOT_LABS: its inventory and devices."),
    ] = None,
) -> None:
    """The doctor: settings, database, audit, chat, LLM, inventory and every device; one line
    each with the fix; exit status 1 when anything is broken."""
    from bot.check.doctor import run_checks
    from bot.check.findings import failed, shown

    findings = asyncio.run(run_checks(only=lab))
    typer.echo(shown(findings, as_json=as_json))
    if failed(findings):
        raise typer.Exit(1)


@app.command()
def health() -> None:
    """Exit 0 when the database answers, as GET /healthz checks it: the health check of a
    container that serves no HTTP (Socket Mode, Matrix). Else the reason, exit status 1 (what
    Docker reads as unhealthy; it reserves 2)."""
    from bot.runtime.health import health_problem

    problem = asyncio.run(health_problem(_settings()))
    if problem:
        _fail(problem, status=1)
    out.print("ok", highlight=False)


@app.command()
def pending(
    user: Annotated[
        str | None,
        typer.Option(
            help="Whose: a user id (U0123, @alice:example.org, console:bob); default: you at "
            "the console (console:OS-USER)."
        ),
    ] = None,
    lab: Annotated[
        str | None, typer.Option(help="Only this lab of LABBOT_LABS (judged by its rules).")
    ] = None,
) -> None:
    """The open steps USER may decide (change, requester, step, devices, age, expiry, link);
    under LABBOT_LABS per lab, each judged by its own rules."""
    from bot.cli.pending import pending_report, you_at_the_console

    whose = user or you_at_the_console()
    said = asyncio.run(pending_report(_settings(), whose, lab))
    out.print(said, highlight=False, soft_wrap=True)


@app.command()
def console(
    script: Annotated[
        Path | None, typer.Option(help="Read the chat from FILE instead of the keyboard.")
    ] = None,
    lab: Annotated[
        str | None, typer.Option(help="The chat on this lab of LABBOT_LABS (as in its channels).")
    ] = None,
) -> None:
    """The console chat on the configured lab, as you (the OS user): same gates and policy.
    Lines come from the keyboard, --script FILE, or stdin when it is a file or a pipe."""
    from bot.cli.console import run_console

    asyncio.run(run_console(_settings(), script=script, lab=lab))


@app.command()
def rollback(
    change_id: Annotated[str, typer.Argument(help="The change to undo.")],
    as_user: Annotated[
        str | None, typer.Option("--as", help="One of LABBOT_CONSOLE_USERS (default: you).")
    ] = None,
    lab: Annotated[
        str | None,
        typer.Option(help="The lab of LABBOT_LABS it was made on [default: as its audit says]."),
    ] = None,
) -> None:
    """Propose undoing a pushed change; it needs approval like any change (console chat, on
    the lab the change was made on)."""
    from bot.cli.rollback import run_rollback

    asyncio.run(run_rollback(_settings(), change_id, as_user=as_user, lab=lab))


def main() -> None:
    """Console entry point: a labbot error is one line on stderr, never a traceback."""
    try:
        plain_flags(typer.main.get_command(app))(prog_name="labbot")
    except LabbotError as exc:
        _fail(str(exc))
    except OSError as exc:  # a file or folder it was told to use: where, and why
        if exc.filename is None:
            raise
        _fail(messages.FILE_FAILED.format(path=exc.filename, why=exc.strerror))
    except KeyboardInterrupt:
        sys.exit(130)


def _fail(line: str, *, status: int = 2) -> None:
    # soft_wrap: one line even without a terminal (container logs), however long
    Console(stderr=True, soft_wrap=True).print(f"[red]labbot:[/red] {line}", highlight=False)
    sys.exit(status)

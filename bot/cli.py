"""The `labbot` command line: demo, serve, audit, templates, lab, db, rollback."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from bot.settings import Settings, load_settings
from workflow.errors import LabbotError

app = typer.Typer(
    help="labbot: change your network lab safely from chat.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
audit_app = typer.Typer(help="Who confirmed which change.", invoke_without_command=True)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
templates_app = typer.Typer(help="The template library.", invoke_without_command=True)
app.add_typer(audit_app, name="audit")
app.add_typer(db_app, name="db")
app.add_typer(templates_app, name="templates")

out = Console()


def _settings(**overrides: object) -> Settings:
    return load_settings(**{k: v for k, v in overrides.items() if v is not None})


@app.command()
def demo(
    as_user: Annotated[str, typer.Option("--as", help="Your user name in the chat.")] = "alice",
    script: Annotated[
        Path | None, typer.Option(help="Read the chat from FILE instead of the keyboard.")
    ] = None,
    devices: Annotated[int, typer.Option(help="Routers in the simulated lab.")] = 3,
    data_dir: Annotated[Path | None, typer.Option(help="Where the demo keeps data.")] = None,
) -> None:
    """Simulated lab + console chat + SQLite: try labbot without any account."""
    from bot.demo import run_demo

    settings = _settings(data_dir=data_dir)
    asyncio.run(run_demo(settings, user=as_user, script=script, devices=devices))


@app.command()
def lab(
    devices: Annotated[int, typer.Option(help="Number of simulated routers.")] = 3,
    topology: Annotated[Path | None, typer.Option(help="Topology YAML file.")] = None,
    inventory: Annotated[
        Path | None, typer.Option(help="Also write a Nornir hosts.yaml for LABBOT_INVENTORY.")
    ] = None,
) -> None:
    """Run the simulated lab on 127.0.0.1 until Ctrl-C."""
    from labsim import serve

    asyncio.run(serve(topology or devices, inventory=inventory))


@audit_app.callback()
def audit(
    ctx: typer.Context,
    change: Annotated[str | None, typer.Option(help="Only this change id.")] = None,
    user: Annotated[str | None, typer.Option(help="Only this user (id or name).")] = None,
    device: Annotated[str | None, typer.Option(help="Only pushes to this device.")] = None,
    since: Annotated[datetime | None, typer.Option(help="From this time (UTC).")] = None,
    until: Annotated[datetime | None, typer.Option(help="Until this time (UTC).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
) -> None:
    """List audit records (requests, decisions, refusals, pushes)."""
    if ctx.invoked_subcommand is not None:
        return
    from bot.audit_cli import print_audit

    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("use table, csv or json", param_hint="--format")
    asyncio.run(print_audit(_settings(), change, user, device, since, until, fmt))  # type: ignore[arg-type]


@audit_app.command("verify")
def audit_verify() -> None:
    """Check the audit hash chain; name the first broken row."""
    from bot.audit_cli import verify_audit

    if not asyncio.run(verify_audit(_settings())):
        raise typer.Exit(1)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database schema to the newest revision."""
    from storage.db import upgrade_database

    settings = _settings()
    revision = asyncio.run(upgrade_database(settings.database_url))
    out.print(f"database at revision {revision}")


@templates_app.callback()
def templates(
    ctx: typer.Context, name: Annotated[str | None, typer.Argument(help="One template.")] = None
) -> None:
    """List the template library, or show one template."""
    if ctx.invoked_subcommand is not None:
        return
    from adapters.console.render import render_message
    from bot.presenter import present_catalog, present_template
    from workflow.library.catalog import load_catalog

    catalog = load_catalog()
    message = present_template(catalog.get(name)) if name else present_catalog(catalog)
    out.print(render_message(message))


@app.command()
def serve(
    http: Annotated[bool, typer.Option(help="Slack HTTP mode instead of Socket Mode.")] = False,
    port: Annotated[int, typer.Option(help="HTTP port (with --http).")] = 3000,
    host: Annotated[str, typer.Option(help="HTTP bind address (with --http).")] = "127.0.0.1",
) -> None:
    """Run the configured chat adapters (Slack, Matrix) until stopped."""
    from bot.serve import run_serve

    asyncio.run(run_serve(_settings(), http=http, host=host, port=port))


@app.command()
def rollback(
    change_id: Annotated[str, typer.Argument(help="The change to undo.")],
    as_user: Annotated[str, typer.Option("--as", help="Your user name.")] = "cli",
) -> None:
    """Propose undoing a pushed change; it needs approval like any change (console chat)."""
    from bot.demo import run_console

    asyncio.run(run_console(_settings(), user=as_user, first_line=f"rollback {change_id}"))


def main() -> None:
    """Console entry point: a labbot error is one line on stderr, never a traceback."""
    try:
        app()
    except LabbotError as exc:
        Console(stderr=True).print(f"[red]labbot:[/red] {exc}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)

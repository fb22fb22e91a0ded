"""`labbot matrix devices` and `labbot matrix verify`: the devices of encrypted Matrix rooms."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from base.errors import ConfigError

# The Matrix code (matrix-nio and its crypto: ~1.5 s) and the settings are imported by these
# commands only, not by every `labbot` command.
matrix_app = typer.Typer(help="Matrix encrypted rooms: devices and their trust.")
out = Console()


@matrix_app.command("devices")
def devices() -> None:
    """Every device labbot knows from encrypted rooms, with its key and verification state."""
    from adapters.matrix.key_store import DeviceStoreError, list_devices
    from bot.runtime.serve_matrix import STORE_SUBDIR
    from bot.settings import load_settings

    try:
        rows = list_devices(load_settings().data_dir / STORE_SUBDIR)
    except DeviceStoreError as exc:
        raise ConfigError(str(exc)) from None
    table = Table("user", "device", "name", "ed25519 key", "state")
    for row in rows:
        table.add_row(row.user_id, row.device_id, row.name, row.ed25519, row.state)
    out.print(table)


@matrix_app.command("verify")
def verify(
    user: Annotated[str, typer.Argument(help="The device's owner, e.g. @bob:example.org.")],
    device: Annotated[str, typer.Argument(help="The device id, e.g. ABCDEFGHIJ.")],
    key: Annotated[str, typer.Argument(help="Its Ed25519 key as its owner's client shows it.")],
) -> None:
    """Trust a device verified out of band (LABBOT_MATRIX_TRUST=verified counts its decisions)."""
    from adapters.matrix.key_store import DeviceStoreError, verify_device
    from bot.runtime.serve_matrix import STORE_SUBDIR
    from bot.settings import load_settings

    try:
        row = verify_device(load_settings().data_dir / STORE_SUBDIR, user, device, key)
    except DeviceStoreError as exc:
        raise ConfigError(str(exc)) from None
    out.print(f"verified {row.user_id} {row.device_id} ({row.name or 'no name'})")

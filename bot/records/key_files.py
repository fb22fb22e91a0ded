"""Keys kept outside the database: read from LABBOT_DATA_DIR, generated there once (mode 0600)
when the embedded database runs without the setting that would carry them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from base.errors import ConfigError


def key_from_file(
    path: Path, make: Callable[[], str], setting: str, *, create: bool = True
) -> str | None:
    """The key in `path`, written there first with `make()` when there is none (`create=False`:
    None instead). Replicas starting at once all read the one key the first of them wrote."""
    if not create and not path.exists():
        return None
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as key_file:
                key_file.write(make())
        return path.read_text(encoding="utf-8").strip()
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(
            f"{setting}: not set, and {path} cannot be used ({exc.strerror})"
        ) from None

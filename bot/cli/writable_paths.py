"""Files the command line writes: a path that cannot be written is one line naming the option
and why, said before any work is done, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

from base.errors import ConfigError
from bot import messages


def writable(path: Path, option: str) -> Path:
    """`path` when a file can be written there, else ConfigError naming `option`."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        why = messages.IS_A_FOLDER
    elif not folder.is_dir():
        why = messages.NO_SUCH_FOLDER.format(folder=folder)
    elif not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        why = messages.NOT_WRITABLE
    else:
        return path
    raise ConfigError(messages.CANNOT_WRITE.format(option=option, path=path, why=why))

"""The command line's own lines: `labbot check` (the doctor: one line per item and its fix),
`labbot serve`'s checks before it listens, files it cannot write."""

from __future__ import annotations

# files the command line writes (bot/files.py)
CANNOT_WRITE = "{option}: cannot write {path}: {why}"
IS_A_FOLDER = "it is a folder; name a file"
NO_SUCH_FOLDER = "no such folder {folder}; create it or choose another path"
NOT_WRITABLE = "permission denied; choose a path you may write"
FILE_FAILED = "cannot use {path}: {why}"

"""The deploy files read as their tools read them: the Dockerfile's instructions and the
Kubernetes manifests, found by kind and name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
KUBERNETES = sorted((DEPLOY / "kubernetes").glob("*.yaml"))


def instructions() -> dict[str, list[str]]:
    """Dockerfile instruction -> its arguments, every occurrence (continuations joined)."""
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            found.setdefault(word.upper(), []).append(rest.strip())
    return found


def docker_cmd() -> list[str]:
    return list(yaml.safe_load(instructions()["CMD"][-1]))  # JSON form is YAML too


def manifests() -> list[dict[str, Any]]:
    return [doc for path in KUBERNETES for doc in yaml.safe_load_all(path.read_text()) if doc]


def named(kind: str, name: str) -> dict[str, Any]:
    """The one manifest of `kind` called `name`."""
    found = [d for d in manifests() if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"one {kind} {name} in deploy/kubernetes, found {len(found)}"
    return found[0]

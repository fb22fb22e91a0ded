"""The deploy files read as their tools read them: the Dockerfile's instructions, the
Kubernetes manifests found by kind and name, and each Kubernetes path as kustomize renders it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
KUSTOMIZATION = "kustomization.yaml"
KUBERNETES = sorted(
    path for path in (DEPLOY / "kubernetes").rglob("*.yaml") if path.name != KUSTOMIZATION
)


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


def kustomizations() -> dict[str, dict[str, Any]]:
    """Each kustomization (or component) under deploy/kubernetes by its folder: `single-pod`,
    `replicas`, `replicas/migrate`, `image`, ..."""
    root = DEPLOY / "kubernetes"
    return {
        str(path.parent.relative_to(root)): yaml.safe_load(path.read_text())
        for path in sorted(root.rglob(KUSTOMIZATION))
    }


def rendered(path: str) -> list[dict[str, Any]]:
    """What `kubectl apply -k deploy/kubernetes/PATH` would apply, as kustomize renders it:
    kubectl's own, else the kustomize binary .ci/kustomize.sh installs (LABBOT_TEST_KUSTOMIZE);
    with neither the test is skipped in one line, failed under CI=true."""
    folder = str(DEPLOY / "kubernetes" / path)
    kubectl = shutil.which("kubectl")
    kustomize = os.environ.get("LABBOT_TEST_KUSTOMIZE")
    if kubectl is not None:
        command = [kubectl, "kustomize", folder]
    elif kustomize:
        command = [kustomize, "build", folder]
    else:
        problem = "neither kubectl nor kustomize (.ci/kustomize.sh): kustomizations not rendered"
        if os.environ.get("CI") == "true":
            pytest.fail(problem)
        pytest.skip(problem)
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]

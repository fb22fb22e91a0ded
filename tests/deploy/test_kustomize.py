"""The Kubernetes paths as `kubectl apply -k` applies them: single-pod (Socket Mode and/or
Matrix, SQLite on a ReadWriteOnce volume), replicas (Slack HTTP mode on PostgreSQL) and its
migration Job; the image named in one place; the docs' commands that wait, bounded."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.settings import load_settings
from tests.deploy.files import DEPLOY, KUBERNETES, kustomizations, manifests, named, rendered

Doc = dict[str, Any]
PATHS = ("single-pod", "replicas", "replicas/migrate")  # what a person applies with -k
FILLED_IN = {"SLACK_APP_TOKEN": "xapp-1-A1-1-x"}


def containers(docs: list[Doc]) -> list[Doc]:
    found = []
    for doc in docs:
        if doc["kind"] in ("Deployment", "Job"):
            found += doc["spec"]["template"]["spec"]["containers"]
    return found


def kinds(docs: list[Doc]) -> set[tuple[str, str]]:
    return {(doc["kind"], doc["metadata"]["name"]) for doc in docs}


def test_the_image_is_named_in_one_place() -> None:
    found = kustomizations()
    (image,) = found["image"]["images"]
    assert image["name"] == "labbot"
    with_images = [folder for folder, k in found.items() if "images" in k]
    assert with_images == ["image"]
    assert {c["image"] for c in containers(manifests())} == {"labbot"}  # only the placeholder
    for path in KUBERNETES:
        assert "labbot:latest" not in path.read_text(), path
        assert set(re.findall(r"image: *([^\s#]+)", path.read_text())) <= {"labbot"}, path


@pytest.mark.parametrize("path", PATHS)
def test_every_path_runs_the_image_named_there(path: str) -> None:
    (image,) = kustomizations()["image"]["images"]
    named_image = f"{image['newName']}:{image['newTag']}"
    docs = rendered(path)
    assert containers(docs) and {c["image"] for c in containers(docs)} == {named_image}


def test_single_pod_is_one_socket_mode_pod_on_sqlite_in_its_own_volume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered("single-pod")
    assert kinds(docs) == {
        ("ConfigMap", "labbot-lab"),
        ("PersistentVolumeClaim", "labbot-data"),
        ("Deployment", "labbot-socket-mode"),
    }  # no Service, no migration Job: nothing reaches it, SQLite upgrades itself
    (claim,) = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
    (pod,) = [d for d in docs if d["kind"] == "Deployment"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert pod["spec"]["replicas"] == 1 and pod["spec"]["strategy"] == {"type": "Recreate"}
    (container,) = pod["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["serve"] and "ports" not in container
    assert container["livenessProbe"]["exec"]["command"] == ["labbot", "health"]
    monkeypatch.chdir(tmp_path)  # no .env of this checkout
    monkeypatch.setenv("LABBOT_DATA_DIR", "/data")  # the image's
    secret = named("Secret", "labbot")["stringData"]  # the example, PostgreSQL URL and all
    env = {e["name"]: e["value"] for e in container["env"]}  # env wins over envFrom
    for name, value in {**secret, **FILLED_IN, **env}.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:////data/labbot.db"
    assert settings.slack_app_token is not None  # Socket Mode


def test_replicas_are_http_pods_on_postgresql_without_the_socket_mode_pod() -> None:
    docs = rendered("replicas")
    assert kinds(docs) == {
        ("ConfigMap", "labbot-lab"),
        ("PersistentVolumeClaim", "labbot-data"),
        ("Deployment", "labbot"),
        ("Service", "labbot"),
    }  # the migration Job runs first, from replicas/migrate
    assert kinds(rendered("replicas/migrate")) == {("Job", "labbot-migrate")}


def test_the_docs_apply_the_paths_and_bound_every_wait() -> None:
    text = (DEPLOY.parent / "docs" / "deploy.md").read_text()
    waits = re.findall(r"kubectl (?:wait|rollout status)[^\n]*", text)
    assert waits and all("--timeout=" in line for line in waits), waits
    for path in PATHS:
        assert f"kubectl apply -k {path}" in text, path
    assert "kustomize edit set image" in text  # how the image is named, said once

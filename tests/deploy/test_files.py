"""The deploy files, checked with what runs without a Docker engine or a cluster: the Compose
spec's JSON schema, the Kubernetes API schemas, and what the files must agree on (the command,
the port, the probes, the user, the settings' names)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import kubernetes_validate
import pytest
import yaml

from bot.settings import Settings
from tests.deploy.files import DEPLOY, docker_cmd, instructions, manifests, named

SETTINGS = {str(f.validation_alias) for f in Settings.model_fields.values()}
DEPLOYMENTS = ("labbot", "labbot-socket-mode")  # HTTP replicas; one Socket Mode pod
COMPOSE_FILES = ("docker-compose.yml", "compose.socket-mode.yml")  # HTTP on PostgreSQL; one process


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_compose_file_matches_the_compose_spec(compose_file: str) -> None:
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.compose-spec",
            str(DEPLOY / compose_file),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_compose_runs_migrations_first_then_the_bot_on_postgres() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    bot, migrate = services["labbot"], services["migrate"]
    assert bot["command"] == docker_cmd() and migrate["command"] == ["db", "upgrade"]
    assert bot["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for service in (bot, migrate):
        url = service["environment"]["LABBOT_DATABASE_URL"]
        assert url.startswith("postgresql+psycopg://") and "@postgres:5432/" in url
    assert services["synapse"]["profiles"] == ["matrix"]  # only with --profile matrix
    assert set(services[name].get("env_file") for name in ("labbot", "migrate")) == {".env"}


def test_kubernetes_manifests_match_the_api_schemas() -> None:
    found = set()
    for doc in manifests():
        kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)
        found.add((doc["kind"], doc["metadata"]["name"]))
    assert found == {
        ("PersistentVolumeClaim", "labbot-data"),  # /data: audit head, Matrix E2EE store
        ("ConfigMap", "labbot-lab"),  # the inventory and the owners file
        ("Secret", "labbot"),  # tokens and keys (secret.example.yaml)
        *(("Deployment", name) for name in DEPLOYMENTS),
        ("Service", "labbot"),
        ("Job", "labbot-migrate"),
    }


def test_kubernetes_runs_replicas_of_the_image_command_with_probes_and_metrics() -> None:
    deployment = named("Deployment", "labbot")
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert deployment["spec"]["replicas"] >= 2
    assert container["args"] == docker_cmd()
    port = docker_cmd()[docker_cmd().index("--port") + 1]
    assert container["ports"][0]["containerPort"] == int(port)
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz"
    annotations = pod["metadata"]["annotations"]
    assert (annotations["prometheus.io/path"], annotations["prometheus.io/port"]) == (
        "/metrics",
        port,
    )
    uid = re.search(r"--uid (\d+)", " ".join(instructions()["RUN"]))
    assert uid and pod["spec"]["securityContext"]["runAsUser"] == int(uid.group(1))
    job = named("Job", "labbot-migrate")["spec"]["template"]["spec"]["containers"][0]
    assert job["args"] == ["db", "upgrade"] and job["image"] == container["image"]


def test_kubernetes_and_compose_name_only_real_settings() -> None:
    names = set(named("Secret", "labbot")["stringData"])
    for deployment in DEPLOYMENTS:
        pod = named("Deployment", deployment)["spec"]["template"]["spec"]
        names |= {e["name"] for c in pod["containers"] for e in c.get("env", [])}
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    names |= set(compose["services"]["labbot"]["environment"])
    assert names <= SETTINGS, names - SETTINGS


PYPROJECT = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())
PACKAGED = [p.rstrip("*") for p in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]]


@pytest.mark.parametrize("package", PACKAGED)
def test_image_copies_every_packaged_source_folder(package: str) -> None:
    assert f"{package} ./{package}" in instructions()["COPY"]


def test_image_is_slim_non_root_and_checks_its_health() -> None:
    found = instructions()
    assert found["ARG"] == ["BASE_IMAGE=python:3.11-slim"]  # a Debian base with python3 works too
    stages = [stage.split() for stage in found["FROM"]]  # [image] or [image, "AS", name]
    aliases = {stage[2] for stage in stages if len(stage) == 3}
    assert {stage[0] for stage in stages} <= {"${BASE_IMAGE}", *aliases}  # no other image
    assert stages[-1] == ["${BASE_IMAGE}"]  # what ships: the base and what is copied onto it
    assert found["USER"] == ["labbot"]
    assert found["ENTRYPOINT"] == ['["labbot"]']
    assert docker_cmd()[:2] == ["serve", "--http"]
    port = docker_cmd()[docker_cmd().index("--port") + 1]
    assert found["EXPOSE"] == [port]
    assert f"http://127.0.0.1:{port}/healthz" in found["HEALTHCHECK"][0]

"""The Kubernetes files as a person applies them: the data each pod keeps on the claim, the lab's
inventory and owners from the ConfigMap, the tokens from the Secret, the HTTP replicas beside the
single Socket Mode pod (the paths as kustomize renders them: test_kustomize.py). Read with the
real settings, inventory and owners parsers; the API schemas themselves are checked in
test_files.py."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from bot.policy.rules import parse_owners
from bot.settings import load_settings
from tests.deploy.files import DEPLOY, docker_cmd, named, rendered
from workflow.devices.inventories.static import StaticInventory

Doc = dict[str, Any]
# Keys of the example Secret an operator fills in for Matrix and Socket Mode.
FILLED_IN = {"MATRIX_HOMESERVER": "https://matrix.example.org", "SLACK_APP_TOKEN": "xapp-1-A1-1-x"}

CLAIM = named("PersistentVolumeClaim", "labbot-data")
LAB = named("ConfigMap", "labbot-lab")
SECRET = named("Secret", "labbot")
HTTP = named("Deployment", "labbot")
SOCKET = named("Deployment", "labbot-socket-mode")


def pod(deployment: Doc) -> Doc:
    spec: Doc = deployment["spec"]["template"]["spec"]
    return spec


def container(deployment: Doc) -> Doc:
    (only,) = pod(deployment)["containers"]
    return dict(only)


def env(deployment: Doc) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container(deployment).get("env", [])}


def volume_at(deployment: Doc, path: str) -> Doc:
    """The pod volume mounted at `path`, with the mount's readOnly flag."""
    (mount,) = [m for m in container(deployment)["volumeMounts"] if m["mountPath"] == path]
    (volume,) = [v for v in pod(deployment)["volumes"] if v["name"] == mount["name"]]
    return {**volume, "readOnly": mount.get("readOnly", False)}


def settings_of(
    deployment: Doc, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **filled_in: str
) -> Any:
    """The settings the pod's labbot reads: the Secret's values (with `filled_in` ones), then
    the container's env, which Kubernetes puts over envFrom."""
    monkeypatch.chdir(tmp_path)  # no .env of this checkout
    for name, value in {**SECRET["stringData"], **filled_in, **env(deployment)}.items():
        monkeypatch.setenv(name, value)
    return load_settings()


@pytest.mark.parametrize("deployment", [HTTP, SOCKET], ids=["http", "socket-mode"])
def test_every_pod_keeps_data_on_the_claim(deployment: Doc) -> None:
    data = volume_at(deployment, "/data")
    assert data["persistentVolumeClaim"]["claimName"] == CLAIM["metadata"]["name"]
    assert "emptyDir" not in data and not data["readOnly"]
    # uid 10001 writes the claim: its files belong to the pod's fsGroup
    assert pod(deployment)["securityContext"]["fsGroup"] == 10001
    assert container(deployment)["envFrom"] == [{"secretRef": {"name": "labbot"}}]


def test_the_claim_is_written_by_one_pod_unless_the_http_replicas_share_it() -> None:
    assert CLAIM["spec"]["accessModes"] == ["ReadWriteOnce"]  # any storage class has it
    assert CLAIM["spec"]["resources"]["requests"]["storage"]
    (shared,) = [d for d in rendered("replicas") if d["kind"] == "PersistentVolumeClaim"]
    (http,) = [d for d in rendered("replicas") if d["kind"] == "Deployment"]
    assert http["spec"]["replicas"] >= 2
    assert shared["spec"]["accessModes"] == ["ReadWriteMany"]


@pytest.mark.parametrize("deployment", [HTTP, SOCKET], ids=["http", "socket-mode"])
async def test_every_pod_reads_the_inventory_and_owners_from_the_config_map(
    deployment: Doc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = volume_at(deployment, "/config")
    assert config["configMap"]["name"] == LAB["metadata"]["name"] and config["readOnly"]
    settings = settings_of(deployment, monkeypatch, tmp_path)
    for path in (settings.inventory, settings.owners):
        assert PurePosixPath(path).parent == PurePosixPath("/config")
        assert path.name in LAB["data"]  # a key of the ConfigMap: a file in the mount
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(LAB["data"][settings.inventory.name])
    devices, _, unusable = await StaticInventory(hosts).load()
    assert [d.name for d in devices] and not unusable
    assert all(d.host and d.platform for d in devices)
    owners = parse_owners(LAB["data"][settings.owners.name])
    assert owners and all(rule.owners for rule in owners)


def test_the_http_replicas_serve_slack_over_http_and_never_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert container(HTTP)["args"] == docker_cmd()
    settings = settings_of(HTTP, monkeypatch, tmp_path, **FILLED_IN)
    assert settings.slack_configured and settings.slack_signing_secret is not None
    assert not settings.matrix_configured  # one Matrix device: the Socket Mode pod's


def test_socket_mode_is_one_pod_that_is_stopped_before_its_successor_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SOCKET["spec"]["replicas"] == 1
    assert SOCKET["spec"]["strategy"] == {"type": "Recreate"}
    assert container(SOCKET)["args"] == ["serve"]  # Socket Mode: not --http
    assert container(SOCKET)["image"] == container(HTTP)["image"]
    service = named("Service", "labbot")
    labels = SOCKET["spec"]["template"]["metadata"]["labels"]
    assert not service["spec"]["selector"].items() <= labels.items()  # no HTTP traffic to it
    assert SOCKET["spec"]["selector"]["matchLabels"] != HTTP["spec"]["selector"]["matchLabels"]
    assert set(FILLED_IN) <= set(SECRET["stringData"])  # the example has their keys
    settings = settings_of(SOCKET, monkeypatch, tmp_path, **FILLED_IN)
    assert settings.matrix_configured and settings.slack_app_token is not None


def test_the_secret_names_an_external_postgresql_and_one_audit_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_of(HTTP, monkeypatch, tmp_path)
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert settings.audit_key is not None  # replicas on PostgreSQL must key the chain alike
    job = named("Job", "labbot-migrate")["spec"]["template"]["spec"]["containers"][0]
    assert job["envFrom"] == [{"secretRef": {"name": "labbot"}}]


async def test_compose_mounts_the_lab_files_read_only_where_the_inventory_setting_points() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    bot = compose["services"]["labbot"]
    assert "./config:/config:ro" in bot["volumes"]  # deploy/config/, beside the compose file
    inventory = PurePosixPath(bot["environment"]["LABBOT_INVENTORY"])
    assert inventory.parent == PurePosixPath("/config")
    example = DEPLOY / "config" / f"{inventory.stem}.example{inventory.suffix}"
    devices, _, unusable = await StaticInventory(example).load()
    assert [d.name for d in devices] and not unusable
    assert parse_owners((DEPLOY / "config" / "owners.example").read_text())

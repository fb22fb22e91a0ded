"""deploy/compose.socket-mode.yml as a newcomer runs it, with no hand edit: one labbot in Slack
Socket Mode on the embedded database in the `data` volume, no published port, a health check
that needs no HTTP, and the same confinement as the HTTP deployment (docker-compose.yml).
Its settings are read with labbot's own loader from deploy/.env.example plus the file's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.settings import load_settings
from tests.deploy.files import DEPLOY, instructions

SOCKET_MODE = yaml.safe_load((DEPLOY / "compose.socket-mode.yml").read_text())
HTTP_MODE = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
# What keeps the container confined and its data kept, alike in both files.
CONFINED = ("image", "env_file", "read_only", "tmpfs", "volumes", "cap_drop", "security_opt")
KEPT = ("restart", "stop_grace_period")
FILLED_IN = {"SLACK_BOT_TOKEN": "xoxb-1-x", "SLACK_APP_TOKEN": "xapp-1-A1-1-x"}


def bot() -> dict[str, Any]:
    (name,) = SOCKET_MODE["services"]  # one process: no PostgreSQL, no migration job
    service: dict[str, Any] = SOCKET_MODE["services"][name]
    return service


def env_example() -> dict[str, str]:
    """deploy/.env.example's assignments, as compose's env_file reads them."""
    found = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            found[name.strip()] = value.strip()
    return found


def test_socket_mode_serves_without_http_and_publishes_no_port() -> None:
    service = bot()
    assert service["command"] == ["serve"]  # not --http: Socket Mode connects out to Slack
    assert "ports" not in service and "expose" not in service
    test = service["healthcheck"]["test"]
    assert test == ["CMD", "labbot", "health"]  # the image's check asks /healthz on HTTP
    assert not any("http" in word or "3000" in word for word in test)
    assert instructions()["ENTRYPOINT"] == ['["labbot"]']  # `labbot` is on the image's PATH


def test_socket_mode_is_confined_and_kept_like_the_http_deployment() -> None:
    http = HTTP_MODE["services"]["labbot"]
    for key in (*CONFINED, *KEPT):
        assert bot()[key] == http[key], key
    assert bot()["environment"]["LABBOT_INVENTORY"] == http["environment"]["LABBOT_INVENTORY"]
    assert "data:/data" in bot()["volumes"] and "data" in SOCKET_MODE["volumes"]


def test_the_example_settings_keep_the_images_data_dir_and_choose_socket_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of this checkout
    image_env = instructions()["ENV"][-1]
    assert "LABBOT_DATA_DIR=/data" in image_env
    monkeypatch.setenv("LABBOT_DATA_DIR", "/data")  # what the image sets
    settings = {**env_example(), **FILLED_IN, **bot()["environment"]}
    assert "LABBOT_DATA_DIR" not in settings  # nothing in .env puts /data elsewhere
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    loaded = load_settings()
    assert loaded.data_dir == Path("/data")
    assert loaded.database_url == "sqlite+aiosqlite:////data/labbot.db"  # on the volume
    assert loaded.slack_configured and loaded.slack_app_token is not None

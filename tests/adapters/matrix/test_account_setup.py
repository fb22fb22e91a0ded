"""The Matrix set-up of docs/deploy.md, done as written against the real Synapse: the bot account
made with `register_new_matrix_user` or the admin API, its token from the login the page shows,
and labbot serving with that token."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from bot.runtime.serve_matrix import make_adapter
from bot.settings import load_settings
from tests.fakes.synapse import Synapse, synapse_python

pytestmark = pytest.mark.synapse

DEPLOY_PAGE = Path(__file__).resolve().parents[3] / "docs" / "deploy.md"


def page_commands() -> list[list[str]]:
    """The shell commands of the page's Matrix section, each as its words."""
    matrix = DEPLOY_PAGE.read_text().split("\n## Matrix\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", matrix, re.S)
    commands, pending = [], ""
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            pending += line + "\n"
            try:  # a quoted argument may go on over the next lines
                words = shlex.split(pending, comments=True)
            except ValueError:
                continue
            if words:
                commands.append(words)
            pending = ""
    return commands


def command(program: str, *, method: str = "") -> list[str]:
    return next(
        words
        for words in page_commands()
        if words[0] == program and (not method or method in words)
    )


def body_and_path(words: list[str], server_name: str) -> tuple[dict[str, object], str]:
    body = json.loads(words[words.index("-d") + 1])
    url = next(word for word in words if word.startswith("https://"))
    return body, urlsplit(url).path.replace("example.org", server_name)


def login(synapse: Synapse, user: str = "labbot") -> dict[str, str]:
    """The page's login, as `user` (the page logs in as labbot)."""
    body, path = body_and_path(command("curl", method="POST"), "")
    body["identifier"] = {"type": "m.id.user", "user": user}
    response = httpx.post(f"{synapse.url}{path}", json=body, timeout=30)
    response.raise_for_status()
    return dict(response.json())


def test_the_page_makes_the_bot_account_with_register_new_matrix_user(synapse: Synapse) -> None:
    words = command("register_new_matrix_user")
    words[0] = str(synapse_python().parent / "register_new_matrix_user")
    words[words.index("-c") + 1] = str(synapse.directory / "homeserver.yaml")
    words[-1] = synapse.url  # the page's http://localhost:8008
    made = subprocess.run(words, capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    session = login(synapse)
    assert session["user_id"].startswith("@labbot:") and session["access_token"]


def made_with_the_admin_api(synapse: Synapse) -> dict[str, str]:
    """The page's admin API call (as a server admin) for @labbotapi, then the page's login."""
    admin = synapse.register("deployadmin", admin=True)
    server_name = admin.user_id.split(":", 1)[1]
    body, path = body_and_path(command("curl", method="PUT"), server_name)
    path = path.replace("@labbot:", "@labbotapi:")  # the other test made @labbot
    made = httpx.put(
        f"{synapse.url}{path}",
        json=body,
        headers={"Authorization": f"Bearer {admin.access_token}"},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    return login(synapse, "labbotapi")


async def test_the_admin_api_account_and_its_token_serve_labbot(
    synapse: Synapse, tmp_path: Path
) -> None:
    token = await asyncio.to_thread(made_with_the_admin_api, synapse)
    settings = load_settings(
        data_dir=tmp_path,
        matrix_homeserver=synapse.url,
        matrix_user_id=token["user_id"],
        matrix_access_token=token["access_token"],
    )
    adapter = await make_adapter(settings, http=False, host="", port=0)
    await adapter.close()
    assert adapter.bot.user_id == token["user_id"] and token["user_id"].startswith("@labbotapi:")
    assert adapter._client.device_id == token["device_id"]  # the token's own device

"""`labbot check`'s Matrix lines against a real Synapse: whoami with the token, a refused token,
and a saved session whose E2EE key store is gone."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.fakes.synapse import MatrixAccount, Synapse

LABBOT = str(Path(sys.executable).parent / "labbot")
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")


async def matrix_lines(cwd: Path, **env: str) -> list[str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    process = await asyncio.create_subprocess_exec(
        LABBOT,
        "check",
        cwd=cwd,
        env={**kept, "COLUMNS": "200", **env},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    return [line for line in out.decode().splitlines() if " matrix: " in line]


async def test_whoami_and_the_key_store(
    tmp_path: Path, synapse: Synapse, bot_account: MatrixAccount
) -> None:
    env = {
        "MATRIX_HOMESERVER": synapse.url,
        "MATRIX_USER_ID": bot_account.user_id,
        "MATRIX_ACCESS_TOKEN": bot_account.access_token,
    }
    fine = await matrix_lines(tmp_path, **env)
    assert fine == [
        f"✓ matrix: whoami: {bot_account.user_id} (device {bot_account.device_id}) on "
        f"{synapse.url}",
        f"✓ matrix: E2EE store {tmp_path / 'labbot-data' / 'matrix'}: no key store yet (made at "
        "the first login)",
    ]
    store = tmp_path / "labbot-data" / "matrix"
    store.mkdir(parents=True)
    session = {"homeserver": synapse.url, "user_id": bot_account.user_id}
    (store / "session.json").write_text(json.dumps({**session, "device_id": "GONE"}))
    lost = await matrix_lines(tmp_path, **env)
    assert lost[1].startswith(f"✗ matrix: E2EE store {store}: the key store of device GONE is gone")
    refused = await matrix_lines(tmp_path, **{**env, "MATRIX_ACCESS_TOKEN": "syt_wrong"})
    assert refused[0] == (
        f"✗ matrix: {synapse.url} refused the access token (M_UNKNOWN_TOKEN) — set a valid "
        "MATRIX_ACCESS_TOKEN, or MATRIX_PASSWORD to log in afresh"
    )

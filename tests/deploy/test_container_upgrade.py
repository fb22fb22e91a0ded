"""Upgrade: the database a previous release left (fixtures/release-0.1.0.sql, written by
tests/deploy/release_fixture.py: a change pushed, one waiting at its parameter gate) is
migrated by this image's migration job; its audit is all there and intact, and the pending gate
still decides: the click on its old message pushes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.deploy.containers import deployed, pushes
from tests.deploy.engine import Images
from tests.fakes.slack_api import Posted

pytestmark = pytest.mark.docker

FIXTURES = Path(__file__).parent / "fixtures"
RELEASE, DUMP = FIXTURES / "release-0.1.0.json", FIXTURES / "release-0.1.0.sql"


async def test_the_previous_release_database_is_migrated_and_its_gate_decides(
    images: Images, tmp_path: Path
) -> None:
    release = json.loads(RELEASE.read_text())
    async with deployed(images, tmp_path, replicas=1, initdb=DUMP) as lab:
        migrated = lab.compose.run("logs", "--no-color", "migrate")
        kept = await lab.audit()
        gate = Posted(**release["gate"])  # the gate's message, as Slack still shows it
        lab.slack.api.messages[gate.ts] = gate
        status, _ = await lab.slack.senders[0].interaction(release["click"])
        result = await lab.slack.said(release["thread"], "pushed")
        after = await lab.audit()
        verified = await lab.labbot("audit", "verify")

    assert status == 200
    assert "database at revision" in migrated  # the job upgraded it (from the release's schema)
    assert kept == release["audit"]  # every row, unchanged
    assert after[: len(kept)] == kept
    assert "Approved by <@U3>" in gate.all_text
    assert "✓ 1 ✗ 0 of 1" in result.all_text
    assert [(device, status) for _, device, status in pushes(after)] == [
        ("R1", "success"),  # pushed by the release
        ("R2", "success"),  # decided and pushed after the upgrade
    ]
    assert "audit chain intact" in verified

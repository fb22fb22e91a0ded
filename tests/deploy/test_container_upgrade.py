"""Upgrade in containers: the database release 0.1.0 left (fixtures/release-0.1.0.sql, written by
that release's own code: a change pushed, one waiting at its parameter gate; schema 0003) is
migrated to today's head by this image's migration job; its audit is all there and intact, and
the pending gate still decides: the click on its old message pushes; `labbot db reseal` then
seals the release's audit rows, which read and verify as before.
(tests/deploy/test_release_upgrade.py does the same without Docker.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.containers import deployed, pushes
from tests.deploy.engine import Images
from tests.deploy.release import DUMP, as_released, dumped_revision, head_revision, release
from tests.fakes.slack_api import Posted

pytestmark = [pytest.mark.docker, pytest.mark.xdist_group("deployments")]  # see conftest
KEYED = {"LABBOT_AUDIT_KEY": "upgrade-test-audit-key"}  # the release's rows stay sha256


async def test_the_previous_release_database_is_migrated_and_its_gate_decides(
    images: Images, tmp_path: Path
) -> None:
    old = release()
    async with deployed(images, tmp_path, replicas=1, initdb=DUMP, **KEYED) as lab:
        migrated = lab.compose.run("logs", "--no-color", "migrate")
        kept = await lab.audit()
        gate = Posted(**old["gate"])  # the gate's message, as Slack still shows it
        lab.slack.api.messages[gate.ts] = gate
        status, _ = await lab.slack.senders[0].interaction(old["click"])
        result = await lab.slack.said(old["thread"], "Lines landed outside")
        after = await lab.audit()
        verified = await lab.labbot("audit", "verify")
        resealed = await lab.labbot("db", "reseal")  # the release's audit rows sealed now
        sealed, still = await lab.audit(), await lab.labbot("audit", "verify")

    assert old["revision"] == dumped_revision() == "0003"  # what the release left
    assert f"database at revision {head_revision()}" in migrated  # the job upgraded it
    assert as_released(kept, old["audit"]) == old["audit"]  # every row, as the release showed it
    assert as_released(after, old["audit"]) == old["audit"]
    assert status == 200
    assert "Approved by <@U3>" in gate.all_text
    # the release's template declared no sections: what its push did is reported where it
    # landed, with the rollback offered
    assert "ntp server 10.66.0.2" in result.all_text and "Roll back returns" in result.all_text
    assert pushes(after) == [
        (old["changes"]["pushed"], "R1", "success"),  # pushed by the release
        (old["changes"]["pending"], "R2", "success"),  # decided and pushed after the upgrade
    ]
    assert f"audit chain intact: {len(after)} row(s) verified" in verified  # old rows and new
    assert "changes 2" in resealed and sealed == after, resealed
    assert f"audit chain intact: {len(after)} row(s) verified" in still

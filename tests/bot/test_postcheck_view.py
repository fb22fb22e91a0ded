"""What the post-checks showed is said in the thread: each typed outcome of
workflow/postcheck_outcome.py, worded by bot/views/postcheck.py with bot/messages/, in a result,
the rollback gate, a progress row and how the rollback offer ended (old text still shown)."""

from __future__ import annotations

from typing import get_args

import pytest

from bot import messages
from bot.views.ending import rollback_line
from bot.views.postcheck import checks_text, failures_text, item_body, progress_detail
from bot.views.presenter import present_gate
from tests.support.masks import MASK
from workflow.api import RollbackGate
from workflow.model import PushProgress, ResponseItem
from workflow.phases.reviews import RollbackLines, RollbackReview
from workflow.postcheck_outcome import (
    CHECK_KINDS,
    EVIDENCE,
    OUTCOME_KINDS,
    CheckKind,
    DeviceChecks,
    Evidence,
    Fact,
    Missing,
    OutcomeKind,
)
from workflow.results.endings import RollbackEnding
from workflow.results.responses import build_response

OSPF = Fact(check="ospf_neighbors", key="10.0.12.1", peer="R1", interface="eth0", protocol="")
LOOPBACK = Fact(
    check="loopback_routes", key="10.255.0.3/32", peer="R3", interface="lo", protocol=""
)
STATIC = Fact(check="routes", key="10.99.0.0/16", peer="", interface="", protocol="static")
BGP = Fact(check="bgp_sessions", key="10.0.23.1", peer="", interface="", protocol="")
PREFIX = Fact(check="bgp_prefixes", key="192.0.2.0/24", peer="R2", interface="", protocol="bgp")


def checks(kind: OutcomeKind, missing: list[Missing], platform: str = "") -> DeviceChecks:
    return DeviceChecks(
        kind=kind, seconds=30.04, met=[OSPF, LOOPBACK, STATIC], missing=missing, platform=platform
    )


INIT = Missing(fact=OSPF, evidence="state", seen=["Init"])
NO_ROUTE = Missing(fact=STATIC, evidence="not_in_table", seen=[])

# One outcome of each kind, and what its sentence says.
OUTCOMES: list[tuple[DeviceChecks, str]] = [
    (
        checks("passed", []),
        "post-checks passed after 30.0 s\n✓ OSPF neighbour 10.0.12.1 (R1 eth0) Full\n"
        "✓ route 10.255.0.3/32 (R3 lo) installed\n✓ route 10.99.0.0/16 installed by static",
    ),
    (
        checks("failed", [INIT, NO_ROUTE]),
        "post-checks failed after 30 s: OSPF neighbour 10.0.12.1 (R1 eth0): Init; "
        "route 10.99.0.0/16: not in the routing table",
    ),
    (
        checks("waiting", [INIT, NO_ROUTE]),
        "post-checks waiting (30 s): OSPF neighbour 10.0.12.1 (R1 eth0): Init (+1 more)",
    ),
    (checks("no_parser", [], "juniper_junos"), "post-checks cannot read juniper_junos devices"),
    (
        checks("simulated", [], "labsim"),
        "post-checks not run: R2 is simulated (labsim), no routing runs",
    ),
]

# One piece of evidence of each kind, and how it reads.
MISSING: list[tuple[Missing, str]] = [
    (Missing(fact=BGP, evidence="state", seen=[]), "BGP neighbour 10.0.23.1: absent"),
    (
        Missing(fact=PREFIX, evidence="not_installed", seen=["ospf", "static"]),
        "prefix 192.0.2.0/24 from R2: known by ospf, static but not installed",
    ),
    (NO_ROUTE, "route 10.99.0.0/16: not in the routing table"),
    (
        Missing(fact=STATIC, evidence="held_by_other", seen=["bgp"]),
        "route 10.99.0.0/16: held by bgp, not static",
    ),
]


@pytest.mark.parametrize(("outcome", "says"), OUTCOMES, ids=[o["kind"] for o, _ in OUTCOMES])
def test_each_outcome_is_said_with_its_facts(outcome: DeviceChecks, says: str) -> None:
    assert says in checks_text(outcome, "R2")


@pytest.mark.parametrize(("missing", "says"), MISSING, ids=[m["evidence"] for m, _ in MISSING])
def test_each_kind_of_evidence_names_the_fact_and_what_was_read(
    missing: Missing, says: str
) -> None:
    assert checks_text(checks("failed", [missing]), "R2").endswith(says)


def test_every_kind_has_words_and_an_example() -> None:
    assert set(messages.CHECKS_OUTCOME) == set(OUTCOME_KINDS) == set(get_args(OutcomeKind))
    assert {o["kind"] for o, _ in OUTCOMES} == set(OUTCOME_KINDS)
    assert set(messages.CHECK_MISSING) == set(EVIDENCE) == set(get_args(Evidence))
    assert {m["evidence"] for m, _ in MISSING} == set(EVIDENCE)
    assert set(messages.CHECK_LABEL) == set(messages.CHECK_MET) == set(get_args(CheckKind))
    facts = {OSPF["check"], LOOPBACK["check"], STATIC["check"], BGP["check"], PREFIX["check"]}
    assert facts == set(CHECK_KINDS)


def test_the_rollback_gate_shows_each_devices_outcome_and_the_push_output() -> None:
    passed = ResponseItem(id="R1", name="R1", status="success", result="pushed 1 line")
    passed["checks"] = checks("passed", [])
    failed = ResponseItem(id="R2", name="R2", status="failed", checks=checks("failed", [INIT]))
    result = build_response([passed, failed])
    review = RollbackReview(
        push=result, post_checks=result, devices={"R2": RollbackLines(lines=["no router ospf 1"])}
    )
    message = present_gate(RollbackGate("int-3", "rollback", "chg-9", review, "s" * 64, ""), MASK)
    blocks = {block.title: block.text for block in message.blocks}
    assert blocks["✓ R1 post-checks"].startswith("pushed 1 line\npost-checks passed after 30.0 s")
    assert blocks["✗ R2 post-checks"] == (
        "post-checks failed after 30 s: OSPF neighbour 10.0.12.1 (R1 eth0): Init"
    )


def test_progress_rows_say_the_outcome_so_far_and_plain_details_stay() -> None:
    waiting = checks("waiting", [INIT])
    waiting["within"] = 100
    assert progress_detail(PushProgress("R2", "started", check=waiting)) == (
        "post-checks waiting (30 s of at most 100 s): OSPF neighbour 10.0.12.1 (R1 eth0): Init"
    )
    done = PushProgress("R1", "done", check=checks("passed", []))
    assert progress_detail(done) == "post-checks passed after 30.0 s"
    assert progress_detail(PushProgress("R3", "failed", "timed out")) == "timed out"


def test_the_rollback_offer_names_the_failed_devices_typed_or_from_an_old_checkpoint() -> None:
    failed = ResponseItem(id="R2", name="R2", status="failed", checks=checks("failed", [NO_ROUTE]))
    kept = RollbackEnding(
        kind="kept", failures=[failed], at="2026-11-30T07:20:00+00:00", actor="bob"
    )
    assert rollback_line(kept, MASK) == (
        "post-checks failed (R2: route 10.99.0.0/16: not in the routing table (after 30 s)); "
        "bob kept the change as pushed (no rollback)."
    )
    old = RollbackEnding(
        kind="kept", failures="R2: no route", at="2026-11-30T07:20:00+00:00", actor="bob"
    )
    assert rollback_line(old, MASK).startswith("post-checks failed (R2: no route); bob kept")
    assert failures_text([]) == ""
    assert item_body(ResponseItem(id="R4", name="R4", status="failed", error="gone")) == "gone"

from typing import Any

import pytest

from adapters.chat import parse_button_value
from base.vocabulary import Status
from bot.views.code_blocks import BLOCK_LIMIT, code_blocks
from bot.views.presenter import (
    present_gate,
    present_progress,
    present_result,
    present_status,
)
from tests.support.masks import MASK
from workflow.api import Finished, ParamsGate, RollbackGate, TargetsGate, TemplateGate
from workflow.chosen import Because, chosen
from workflow.library.catalog import load_catalog
from workflow.model import PushProgress, StandardResponse
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import (
    ParamsReview,
    ReviewedTemplate,
    RollbackLines,
    RollbackReview,
    TargetsReview,
    TemplateReview,
)
from workflow.phases.template_assessment import TemplateTest
from workflow.postcheck_outcome import DeviceChecks, Fact, Missing
from workflow.results.endings import GateEnding, RollbackEnding
from workflow.results.responses import build_response

SHA = "a" * 64
EXPIRES = "2026-12-01T00:00:00+00:00"


def params_gate(interrupt_id: str, devices: dict[str, Any]) -> ParamsGate:
    previews = {name: DevicePreview(platform="cisco_ios", **d) for name, d in devices.items()}
    review = ParamsReview(
        template=ReviewedTemplate(name="ospf", description="OSPF", sha256=SHA), devices=previews
    )
    return ParamsGate(interrupt_id, "params", "chg-1", review, SHA, EXPIRES)


def finished(change_id: str, status: Status, result: StandardResponse) -> Finished:
    return Finished(change_id, status, "", result, tokens={})


def test_template_gate_shows_template_schema_example_and_buttons() -> None:
    review = TemplateReview(
        name="ospf",
        description="OSPF everywhere",
        source="library",
        templates={"cisco_ios": "router ospf {{ process_id }}"},
        params_schema={
            "process_id": {"type": "int", "description": "process"},
            "area": {"type": "int", "default": 0},
            "networks": {"type": "list", "default": ["10.0.12.0/24"], "required": False},
        },
        example_params={"process_id": 1},
        example_rendering={"cisco_ios": ["router ospf 1"]},
        targets=["R1", "R2"],
    )
    message = present_gate(TemplateGate("int-1", "template", "chg-1", review, SHA, EXPIRES), MASK)
    texts = [block.text for block in message.blocks]
    assert "router ospf {{ process_id }}" in texts and "router ospf 1" in texts
    assert (
        "process_id: int — process\narea: int = 0\n"
        'networks: list = ["10.0.12.0/24"] (optional)' in texts
    ), texts
    assert [b.label for b in message.buttons] == ["Approve", "Modify", "Cancel"]
    assert parse_button_value(message.buttons[0].value) == ("int-1", SHA)
    assert "R1, R2" in message.text


@pytest.mark.parametrize("name", load_catalog().names())
def test_a_library_template_is_shown_at_its_gate_as_it_is_written(name: str) -> None:
    """Template code is no secret: `snmp-server community {{ community }} {{ 'RO' if … }}`
    once showed its `}}` masked, so the approver read a template that was not the one run."""
    proposal = load_catalog().as_proposal(name, ["R1"])
    review = TemplateReview(
        name=name,
        description=proposal["description"],
        source="library",
        templates=proposal["templates"],
        params_schema=proposal["params_schema"],
        example_params={},
        example_rendering={},
        targets=["R1"],
    )
    message = present_gate(TemplateGate("int-1", "template", "chg-1", review, SHA, EXPIRES), MASK)
    shown = {block.text for block in message.blocks}
    for family, source in proposal["templates"].items():
        assert source.rstrip("\n") in shown, family


def test_template_gate_shows_each_value_the_request_gave_a_secret_one_masked() -> None:
    review = TemplateReview(
        name="snmp_ntp",
        description="SNMP and NTP",
        source="library",
        templates={"cisco_ios": "snmp-server community {{ community }} RO"},
        params_schema={
            "community": {"type": "str"},
            "read_only": {"type": "bool", "default": True},
            "servers": {"type": "list", "items": {"type": "ip"}},
            "area": {"type": "str", "default": "0"},
        },
        requested={"community": "Typed-C-1", "servers": ["10.66.0.1"], "area": "1"},
        example_params={"community": "labro"},
        example_rendering={"cisco_ios": ["snmp-server community labro RO"]},
        targets=["R1"],
    )
    message = present_gate(TemplateGate("int-1", "template", "chg-1", review, SHA, EXPIRES), MASK)
    rows = next(b.text for b in message.blocks if b.text.startswith("community"))
    assert rows.splitlines() == [
        f'community: str = "{MASK.token("Typed-C-1")}" (from the request)',
        "read_only: bool = true",
        'servers: list = ["10.66.0.1"] (from the request)',
        'area: str = "1" (from the request; default "0")',
    ]
    assert all("Typed-C-1" not in block.text for block in message.blocks)


def test_params_gate_asks_to_confirm_execute_and_shows_each_devices_lines_once() -> None:
    line = ["router ospf 1"]
    devices = {
        "R1": {"params": {"area": 0}, "lines": line, "diff": "+ router ospf 1", "blocked": []},
        "R2": {"params": {"area": 0}, "lines": line, "diff": "", "blocked": []},
    }
    message = present_gate(params_gate("int-2", devices), MASK)
    assert message.buttons[0].label == "Execute" and message.buttons[0].confirm
    shown = {block.title: block.text for block in message.blocks}
    assert shown["R1 configuration"] == shown["R2 configuration"] == "router ospf 1  ← global"
    lines = [row for block in message.blocks for row in block.text.splitlines()]
    assert sum("router ospf 1" in row for row in lines) == 2  # once per device, nothing again
    assert "2 device(s), 2 line(s)" in message.text


def test_long_output_is_split_and_huge_output_attached() -> None:
    text = "\n".join(f"line {n:05d} " + "x" * 60 for n in range(200))
    blocks = code_blocks(text, "text", "R1")
    assert len(blocks) > 1 and all(len(b.text) <= BLOCK_LIMIT for b in blocks)
    assert "\n".join(b.text for b in blocks) == text
    assert blocks[0].title == f"R1 (1/{len(blocks)})"
    huge = build_response([{"id": "R1", "name": "R1", "status": "success", "result": "y" * 50_000}])
    message = present_result(finished("chg-1", "done", huge), MASK)
    assert message.attachments and message.attachments[0].text == "y" * 50_000


def test_result_summary_counts_and_marks_each_device() -> None:
    result = build_response(
        [
            {"id": "R1", "name": "R1", "status": "success", "result": "ok"},
            {"id": "R2", "name": "R2", "status": "failed", "error": "Connection refused"},
        ]
    )
    message = present_result(finished("chg-9", "done", result), MASK)
    assert "✓ 1 ✗ 1 of 2" in message.text
    assert [b.title for b in message.blocks] == ["✓ R1", "✗ R2"]
    assert message.blocks[1].text == "Connection refused" and message.level == "error"


def test_progress_message_counts_finished_devices() -> None:
    progress = {
        "R1": PushProgress("R1", "done", "", 1, 3),
        "R2": PushProgress("R2", "started", "", 1, 3),
    }
    message = present_progress("chg-1", progress)
    assert "1/3" in message.text and message.key == "progress:chg-1"


def test_progress_during_post_checks_counts_the_devices_checked() -> None:
    neighbour = Fact(
        check="ospf_neighbors", key="10.0.0.2", peer="R2", interface="eth0", protocol=""
    )
    state = Missing(fact=neighbour, evidence="state", seen=["Init"])
    waiting = DeviceChecks(kind="waiting", seconds=0.4, met=[], missing=[state], platform="frr")
    passed = DeviceChecks(kind="passed", seconds=1.2, met=[], missing=[], platform="frr")
    progress = {
        "R1": PushProgress("R1", "done", "", 1, 3, passed),
        "R2": PushProgress("R2", "started", "", 1, 3, waiting),
        "R3": PushProgress("R3", "done", "", 3, 3),  # pushed, its checks not heard of yet
        "R4": PushProgress("R4", "failed", "refused", 3, 3),  # not pushed: never checked
    }
    message = present_progress("chg-1", progress)
    assert message.text == "Change chg-1 pushed; post-checks: 1/3 device(s) checked"
    assert "⏳ R2 post-checks waiting" in message.blocks[0].text


def test_blocked_lines_and_facts_are_shown_at_the_params_gate() -> None:
    devices = {
        "R1": {
            "params": {},
            "lines": ["do reload"],
            "diff": "",
            "facts": {"name": "R1", "router_id": "10.255.0.1"},
            "blocked": [{"line": "do reload", "rule": "reload", "reason": "reloads the device"}],
        }
    }
    message = present_gate(params_gate("int-3", devices), MASK)
    assert "Execute will be refused" in message.text
    blocks = {block.title: block.text for block in message.blocks}
    assert blocks["Blocked lines"] == "R1: 'do reload' — reloads the device"
    assert 'router_id: "10.255.0.1"' in blocks["R1 facts"]


def test_rollback_gate_shows_the_evidence_the_lines_and_two_choices() -> None:
    checks = build_response(
        [
            {"id": "R1", "name": "R1", "status": "success", "result": "✓ route 10.1.0.0/16"},
            {
                "id": "R2",
                "name": "R2",
                "status": "failed",
                "error": "post-checks failed after 60 s: OSPF neighbour 10.0.12.1 (R1): Init",
            },
        ]
    )
    review = RollbackReview(
        push=checks,
        post_checks=checks,
        devices={
            "R2": RollbackLines(lines=["no router ospf 1"]),
            "R1": RollbackLines(lines=["no router ospf 1"]),
        },
    )
    message = present_gate(RollbackGate("int-3", "rollback", "chg-9", review, SHA, EXPIRES), MASK)
    assert message.text.startswith("*Post-checks failed* for change chg-9 on R2 (of 2 checked)")
    titles = [block.title for block in message.blocks]
    assert titles == [
        "✓ R1 post-checks",
        "✗ R2 post-checks",
        "R2 rollback lines",
        "R1 rollback lines",
    ]
    assert "OSPF neighbour 10.0.12.1 (R1): Init" in message.blocks[1].text
    assert [(b.label, b.choice) for b in message.buttons] == [
        ("Roll back", "approve"),
        ("Keep the change", "cancel"),
    ]
    assert message.buttons[0].confirm and parse_button_value(message.buttons[1].value)[0] == "int-3"


def test_a_change_ended_at_a_gate_is_worded_by_the_bot_with_a_readable_stamp() -> None:
    expired = GateEnding(
        kind="expired", gate="params", at="2026-11-30T07:15:03.5+00:00", actor="", pushed=False
    )
    message = present_status(Finished("chg-2", "expired", "", None, {}, ending=expired), MASK)
    assert message.text == (
        "Change chg-2 expired: the params review expired at 2026-11-30 07:15:03 UTC; nothing "
        "was pushed. Ask again to start a new change."
    )
    cancelled = GateEnding(
        kind="cancelled", gate="params", at="2026-11-30T07:16:00+00:00", actor="bob", pushed=True
    )
    message = present_result(Finished("chg-2", "cancelled", "", None, {}, ending=cancelled), MASK)
    assert message.text == (
        "Change chg-2 cancelled: bob cancelled the change at the params review; "
        "nothing more was pushed."
    )


def test_how_the_offer_to_roll_back_ended_is_said_under_the_result() -> None:
    result = build_response([{"id": "R2", "name": "R2", "status": "failed", "error": "down"}])
    kept = RollbackEnding(
        kind="expired", failures="R2: no route", at="2026-11-30T07:20:00+00:00", actor=""
    )
    message = present_result(Finished("chg-3", "failed", "", result, {}, rollback=kept), MASK)
    assert message.text == (
        "Change chg-3 failed: ✓ 0 ✗ 1 of 1\npost-checks failed (R2: no route); the rollback "
        "review expired at 2026-11-30 07:20:00 UTC, the change stays as pushed."
    )


def test_a_targets_gate_says_how_many_and_lists_a_bounded_part() -> None:
    devices: dict[str, Because] = {f"R{n:04d}": chosen("glob", "R*") for n in range(1, 401)}
    gate = TargetsGate(
        "int-9", "targets", "chg-9", TargetsReview(limit=50, devices=devices), SHA, ""
    )
    message = present_gate(gate, MASK)
    lines = "\n".join(b.text for b in message.blocks).splitlines()
    assert "selects *400* devices, more than LABBOT_MAX_TARGETS (50)" in message.text
    assert lines[0] == "R0001 (matches R*)" and lines[49] == "R0050 (matches R*)"
    assert lines[50].startswith("… and 350 more: R0051, R0052") and lines[50].endswith("R0250, …")
    assert len(lines) == 51 and "R0251" not in "\n".join(lines)
    assert [(b.label, b.choice) for b in message.buttons] == [
        ("Confirm", "approve"),
        ("Cancel", "cancel"),
    ]
    assert parse_button_value(message.buttons[0].value) == ("int-9", SHA)


def test_the_template_gate_says_why_a_template_test_did_not_run() -> None:
    timed_out = TemplateTest(
        device="R1", platform="cisco_ios", lines=3, ok=True, errors=[], skipped="timeout"
    )
    timed_out["seconds"] = 5.0
    no_simulator = TemplateTest(
        device="J1", platform="juniper_junos", lines=2, ok=True, errors=[], skipped="no_simulator"
    )
    review = TemplateReview(
        name="ospf",
        description="OSPF everywhere",
        source="library",
        templates={"cisco_ios": "router ospf 1", "juniper_junos": "set protocols ospf"},
        params_schema={},
        example_params={},
        example_rendering={"cisco_ios": ["router ospf 1"]},
        targets=["R1", "J1"],
        template_test={"cisco_ios": timed_out, "juniper_junos": no_simulator},
    )
    text = present_gate(TemplateGate("int-1", "template", "chg-1", review, SHA, EXPIRES), MASK).text
    assert (
        "Template test on a copy of R1 (cisco_ios): not run, the simulated device did "
        "not finish within 5 s." in text
    ), text
    assert "copy of J1 (juniper_junos): not run, no simulator for juniper_junos." in text, text

"""Why each device was chosen is said beside its name at the gates: each typed reason of
workflow/chosen.py (and where a device's kind comes from), worded by bot/views/targets.py with
bot/messages/, read from a real request's words; text from an old checkpoint is shown as it is."""

from __future__ import annotations

from typing import get_args

import pytest

from bot import messages
from bot.views.targets import because, devices_with_reasons
from workflow.chosen import CHOSEN_KINDS, KIND_SOURCES, Chosen, ChosenKind, KindSource, chosen
from workflow.results.targets import infer_kind, select_targets, target_words

KINDS = {
    "R1": infer_kind(declared="router"),
    "R2": infer_kind(groups=("core", "routers")),
    "SW1": infer_kind(symbol=":/symbols/ethernet_switch.svg"),
    "FW1": infer_kind(family="cisco_ios"),
}

# A request, a device it selects, and why the gate says it was chosen.
REQUESTS = [
    ("apply ospf to R1", "R1", "named"),
    ("apply ospf to r*", "R2", "matches r*"),
    ("apply ospf to all", "SW1", "all: every device"),
    ("apply ospf on all routers", "R1", "router: kind in the inventory"),
    ("apply ospf on all routers", "R2", "router: inventory group routers"),
    ("apply ospf on the switches", "SW1", "switch: GNS3 symbol or node type :/symbols/ethernet_"),
    ("apply ospf on all routers", "FW1", "router: cisco_ios devices are usually routers"),
]


@pytest.mark.parametrize(("text", "device", "says"), REQUESTS)
def test_the_gate_says_which_word_chose_each_device(text: str, device: str, says: str) -> None:
    reasons = select_targets(target_words(text), KINDS).reasons
    assert because(reasons[device]).startswith(says)


def test_every_reason_and_kind_source_has_words() -> None:
    assert set(messages.CHOSEN) == set(CHOSEN_KINDS) == set(get_args(ChosenKind))
    assert set(messages.KIND_FROM) == set(KIND_SOURCES) == set(get_args(KindSource))
    assert because(chosen("changed_by", "chg-4")) == "changed by chg-4"
    assert because(chosen("planner")) == "named by the planner"
    unknown = Chosen(kind="kind", word="firewall", source="unknown", detail="")
    assert because(unknown) == "firewall: kind unknown"
    for kind in CHOSEN_KINDS:
        said = because(chosen(kind, "R*"))
        assert said and "{" not in said


def test_a_reason_kept_as_text_by_an_old_checkpoint_is_shown_as_it_is() -> None:
    assert because("router (kind in the inventory)") == "router (kind in the inventory)"


def test_devices_chosen_for_one_reason_are_named_together_in_order() -> None:
    reasons = select_targets(target_words("apply ospf on all routers"), KINDS).reasons
    reasons["SW1"] = chosen("named")
    assert devices_with_reasons(["R1", "SW1", "FW1", "X9"], reasons) == (
        "R1 (router: kind in the inventory), SW1 (named), "
        "FW1 (router: cisco_ios devices are usually routers), X9"
    )
    assert devices_with_reasons(["R1", "R3"], {"R1": chosen("named"), "R3": chosen("named")}) == (
        "R1, R3 (named)"
    )

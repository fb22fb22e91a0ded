"""The gates: their texts, buttons and block titles, and what a click on one is told."""

from __future__ import annotations

from base.vocabulary import Choice, GateProblem
from workflow.chosen import ChosenKind, KindSource

DRIFTED = (
    "\n⚠️ Changed since the preview approved before, so the push left {devices} alone (the "
    "other devices: {others}). Below: what changed, and a fresh preview against the running "
    "config now."
)
DRIFT_SECTION = "{device} changed since the preview"
ALREADY_DECIDED = "This step was already {choice} by {actor} at {at}."
ALREADY_VOTED = "You already approved this step; it is waiting for someone else's approval."
STALE_GATE = "This button is stale: that step is no longer pending (see the latest message)."
CHANGED_GATE = (
    "Refused: what this button approves differs from what is pending now. "
    "Review the latest message and decide there."
)
PREVIEW_CHANGED = (
    "Refused: the preview changed; look again. Your reply answers an earlier step than the one "
    "pending now: reply to the latest step's message."
)
GATE_PROBLEM: dict[GateProblem, str] = {"stale": STALE_GATE, "changed": CHANGED_GATE}
EXPIRED_GATE = "This step expired at {at}; nothing was pushed. Ask again to start over."
VOTE_RECORDED = "Approval by {actor} recorded ({count} of {required}); waiting for {missing}."
TEMPLATE_TOKENS = "\nLLM tokens for this template: {total} ({how})."
DECIDED_FOOTER: dict[Choice, str] = {
    "approve": "✅ Approved by {actor} at {at}",
    "modify": "✏️ Modification requested by {actor} at {at}: {feedback}",
    "cancel": "❌ Cancelled by {actor} at {at}",
}
# The rollback gate's own words for its two buttons (Roll back, Keep the change).
ROLLBACK_FOOTER: dict[Choice, str] = {
    "approve": "↩️ Roll back approved by {actor} at {at}",
    "cancel": "✋ Kept as pushed by {actor} at {at}",
}
# ... and what a late click is told of them ("This step was already kept as pushed by …")
ROLLBACK_CHOICE_PAST: dict[Choice, str] = {
    "approve": "approved for roll back",
    "cancel": "kept as pushed",
}
EXPIRED_FOOTER = "⌛ Expired at {at}; nothing was pushed"
CHOICE_PAST: dict[Choice, str] = {
    "approve": "approved",
    "modify": "sent back for changes",
    "cancel": "cancelled",
}
POST_CHECK_TEXT = {
    "ospf_neighbors": "OSPF: the neighbour on every link between targets is Full",
    "loopback_routes": "every other target's loopback is in the routing table{protocol}",
    "bgp_sessions": "BGP: every neighbour in `{param}` is Established",
    "bgp_prefixes": "BGP: the `{param}` each peer among the targets announces are received",
    "routes": "the routes in `{param}` are installed{protocol}",
}
POST_CHECKS_TITLE = "Post-checks after the push (wait up to {timeout:g} s)"
VOTE_WAITING_PEOPLE = "{count} more approval(s) by someone other than the requester"
VOTE_WAITING_OWNERS = "an approval by an owner of {devices}"

# The gates (bot/views/presenter.py); each note starts a new line of the gate's text.
TARGETS_GATE = (
    "*Confirm the devices* for change {change_id}: the request selects *{count}* devices, "
    "more than LABBOT_MAX_TARGETS ({limit}). Nothing has been read from them yet. *Confirm* "
    "(an approver other than the requester, an owner of every one) goes on to the template step."
)
SECTION_TARGETS = "Devices selected ({shown} of {count} shown)"
TARGETS_MORE = "… and {count} more: {names}"
# Why the request chose a device (workflow.chosen.Chosen), beside its name at a gate.
CHOSEN: dict[ChosenKind, str] = {
    "named": "named",
    "glob": "matches {word}",
    "every": "{word}: every device",
    "kind": "{word}: {source}",
    "changed_by": "changed by {word}",
    "planner": "named by the planner",
}
# Where a device's kind comes from (workflow.chosen.KindSource); `kind` is the kind itself.
KIND_FROM: dict[KindSource, str] = {
    "inventory": "kind in the inventory",
    "group": "inventory group {detail}",
    "symbol": "GNS3 symbol or node type {detail}",
    "family": "{detail} devices are usually {kind}s",
    "unknown": "kind unknown",
}
TEMPLATE_GATE = (
    "*Step 1 of 2 — template* for change {change_id}: {description}\n"
    "Template `{name}` ({source}) for {targets}."
)
NO_DEVICE = "no device"
PARAMS_GATE = (
    "*Step 2 of 2 — parameters and preview* for change {change_id}: {devices} device(s), "
    "{lines} line(s) to push."
)
GATE_EXPIRES = "expires {at} · "
GATE_FOOTNOTE = "\n_{expires}content sha256 {sha}_"
EXECUTE_CONFIRM = "Push this configuration now?"
USES_TEMPLATES = "\nUses {templates}."
TEMPLATE_TEST_SKIPPED = "\nTemplate test on a copy of {device} ({family}): not run, {why}."
TEMPLATE_TEST_SKIPPED_WHY = {
    "no_simulator": "no simulator for {platform}",
    "timeout": "the simulated device did not finish within {seconds:g} s",
}
TEMPLATE_TEST_FAILED = (
    "\n⚠️ Template test on a copy of {device} ({family}): {refused} of {lines} "
    "line(s) refused; the real device would likely refuse them too."
)
TEMPLATE_TEST_PASSED = (
    "\n✓ Template test on a copy of {device} ({family}): {lines} line(s) accepted."
)
TEMPLATE_MODEL = " Where its lines land: {model}."
NEWER_AT_GATE = "\nℹ️ A newer version exists ({versions}); this change uses what you approve here."
DENY_LIST_AT_GATE = "\n⚠️ {count} line(s) match the deny-list; Execute will be refused."
FACTS_FROM_CONFIG = (
    "\nℹ️ {device}: its interfaces' state could not be read ({why}); its addresses come from "
    "its configuration alone."
)
ROLLBACK_GATE = (
    "*Post-checks failed* for change {change_id} on {failed} (of {total} checked). "
    "Roll back returns each device below to its configuration before the change; "
    "Keep leaves the change as pushed."
)
# The rollback gate after a push that failed on a device after lines landed there (read back;
# NOT_PUSHED_AT_GATE then says what landed where).
PUSH_BROKE_OFF_GATE = (
    "*The push broke off* for change {change_id} on {devices}, after lines landed there or "
    "with what landed unknown. Roll back returns each device below to its configuration before "
    "the change; Keep leaves it as it is now."
)
ROLLBACK_CONFIRM = "Push these rollback lines now?"
# A Modify the library planner (no LLM) cannot act on: the gate stays open.
FEEDBACK_UNREAD = (
    "Without an LLM I cannot use “{feedback}” at the {gate} gate of {change_id}; the gate stays "
    "open, decide it again."
)
FEEDBACK_PARAMS = (
    "Say the parameters of {template} as key=value ({params}), e.g. `{example}`; devices are "
    "chosen at the template gate."
)
FEEDBACK_TEMPLATE = (
    "Here, Modify picks another template (e.g. `apply bgp`) or other devices (e.g. `on R1,R2`). "
    "The parameters of {template} ({params}) are set at the next gate, e.g. `{example}`."
)

# Gate buttons, and the titles of the blocks in gates, results and template listings.
BUTTON_APPROVE = "Approve"
BUTTON_CONFIRM = "Confirm"  # the targets gate's approve: these devices
BUTTON_EXECUTE = "Execute"  # the params gate's approve: it pushes
BUTTON_MODIFY = "Modify"
BUTTON_CANCEL = "Cancel"
BUTTON_ROLL_BACK = "Roll back"
BUTTON_KEEP = "Keep the change"
SECTION_TEMPLATE = "Template ({family})"
SECTION_PARAMETERS = "Parameters"
SECTION_MAY_TOUCH = "May touch only"
SECTION_MAY_BREAK = "This template may (allowed by the lab, past the deny-list)"
SECTION_ALLOWED = "Lines the template's allowances let through"
NO_SECTIONS = "(none declared: saved before templates declared sections; it cannot be applied)"
SECTION_EXAMPLE_FACTS = "Example facts ({family})"
SECTION_EXAMPLE_RENDERING = "Example rendering ({family})"
SECTION_EXAMPLE_PARAMS = "Example parameters"
SECTION_TEST_FAILED = "Template test failed ({device}, {family})"
SECTION_BLOCKED = "Blocked lines"
SECTION_UNUSABLE = "Not used (the reason)"
SECTION_DEVICE_PARAMS = "{device} parameters"
SECTION_DEVICE_FACTS = "{device} facts"
SECTION_DEVICE_LINES = "{device} configuration"
SECTION_DEVICE_REMOVES = "{device}: running lines it removes or replaces"
SECTION_POST_CHECKS = "{icon} {device} post-checks"
SECTION_ROLLBACK_LINES = "{device} rollback lines"

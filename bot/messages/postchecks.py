"""What the post-checks showed on each device (workflow.postcheck_outcome), said in the thread."""

from __future__ import annotations

from workflow.postcheck_outcome import CheckKind, Evidence, OutcomeKind

# One fact a device must show; `of_peer` is PEER_NOTE when the address is a lab device's.
CHECK_LABEL: dict[CheckKind, str] = {
    "ospf_neighbors": "OSPF neighbour {key} ({peer} {interface})",
    "loopback_routes": "route {key} ({peer} {interface})",
    "bgp_sessions": "BGP neighbour {key}{of_peer}",
    "bgp_prefixes": "prefix {key} from {peer}",
    "routes": "route {key}",
}
PEER_NOTE = " ({peer})"
# The fact shown; `by` is BY_PROTOCOL when a protocol must hold the route.
CHECK_MET: dict[CheckKind, str] = {
    "ospf_neighbors": "✓ {label} Full",
    "loopback_routes": "✓ {label} installed{by}",
    "bgp_sessions": "✓ {label} Established",
    "bgp_prefixes": "✓ {label} installed{by}",
    "routes": "✓ {label} installed{by}",
}
BY_PROTOCOL = " by {protocol}"
# Why a fact is not shown yet, with what was read.
CHECK_MISSING: dict[Evidence, str] = {
    "state": "{label}: {state}",
    "not_installed": "{label}: known by {seen} but not installed",
    "not_in_table": "{label}: not in the routing table",
    "held_by_other": "{label}: held by {seen}, not {protocol}",
}
STATE_ABSENT = "absent"
MORE_MISSING = " (+{more} more)"
# One device's outcome: `missing` the evidence ("; "), `first` the first of it (+ how many more).
CHECKS_OUTCOME: dict[OutcomeKind, str] = {
    "passed": "post-checks passed after {seconds:.1f} s",
    "failed": "post-checks failed after {seconds:.0f} s: {missing}",
    "waiting": "post-checks waiting ({seconds:.0f} s{within}): {first}",
    "no_parser": "post-checks cannot read {platform} devices (no parser)",
    "simulated": "post-checks not run: {device} is simulated ({platform}), no routing runs",
}
CHECKS_WITHIN = " of at most {within:.0f} s"  # how long a waiting device's checks may take
CHECKS_FAILED_ON = "{device}: {missing} (after {seconds:.0f} s)"  # in "post-checks failed (…)"
CHECKS_PROGRESS = "Change {change_id} pushed; post-checks: {done}/{total} device(s) checked"
CHECKS_FAILED = "post-checks failed"  # a failed device the checks said nothing more about

# The devices a push did not change as approved (changed since the preview, or their push
# failed: bot/views/not_pushed.py), at the rollback gate and in how its offer ended.
NOT_PUSHED_AT_GATE = "\n⚠️ Not pushed as approved: {failures}."
# those with no rollback lines (changed since the preview: what changed is shown below)
NOT_PUSHED_LEFT = " Neither Roll back nor Keep changes {devices}; ask again to change them."
NOT_PUSHED_ENDED = " Not pushed as approved: {failures}. Ask again to change them."

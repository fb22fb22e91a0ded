"""The audit: tables, one change's record, the HTML report and the chain's head."""

from __future__ import annotations

from storage.audit_records import AuditKind, BreakKind

# the `audit` command's lines in `help`
HELP_AUDIT = """\
  audit [change=ID] [user=U] [device=R1] [since=DATE] [until=DATE]
                            who confirmed which change
  audit report [since=DATE] [change=ID]
                            the same as an HTML report, attached"""
REPORT_ATTACHED = (
    "Audit report: {count} change(s); the audit chain is {chain}. The HTML file is attached."
)
CHAIN_OK = "intact"
CHAIN_BROKEN = "BROKEN (the report names the first altered row)"

# The audit report (bot/audit/report_html.py): plain text, escaped where it is put in the page.
REPORT_TITLE = "labbot audit report"
REPORT_SINCE = "since {at}"
REPORT_ONE_CHANGE = "change {change_id}"
REPORT_ONE_LAB = "lab {lab}"
REPORT_LAB_COLUMN = "lab"  # the timeline's column when changes name their lab
REPORT_MADE_ON = "Made on lab {lab}."
REPORT_ALL_CHANGES = "all recorded changes"
REPORT_LEFT_OUT = " ({count} older change(s) left out)"
REPORT_PERIOD = "{period}: {count} change(s){left}. Generated {at}."
REPORT_CHAIN = "Audit chain"
REPORT_CHAIN_LINE = "Chain verification: {verdict}. Head hash: {head}"
REPORT_ROWS_VERIFIED = ": {rows} row(s) verified"
REPORT_BROKEN = "BROKEN"
REPORT_BROKEN_AT = " at {row}"
REPORT_ACTIVITY = "Activity"
REPORT_PER_DAY = "Changes and decisions per day"
REPORT_PER_PERSON = "Changes and decisions per person"
REPORT_NOT_DRAWN = " ({count} more not drawn)"
REPORT_TIMELINE = "Timeline"
REPORT_TIMELINE_COLUMNS = ("requested", "change", "by", "request", "outcome")
REPORT_OPEN = "open"
REPORT_REQUEST = "Request by {name} ({id}) in {platform} {channel} at {at}:"
REPORT_NO_TEMPLATE = "Template: none recorded (the change ended before a push)"
REPORT_TEMPLATE = "Template"
REPORT_TEMPLATE_COLUMNS = ("name", "version", "source", "sha256", "allows (deny-list)")
REPORT_DIFFS = "Per-device diff"
REPORT_DECISIONS = "Decisions"
REPORT_DECISION_COLUMNS = ("gate", "choice", "who", "when", "content sha256", "feedback")
REPORT_NO_REFUSALS = "No refusals."
REPORT_REFUSALS = "Refusals"
REPORT_REFUSAL_COLUMNS = ("gate", "who", "when", "reason")
REPORT_NOTHING_PUSHED = "Nothing was pushed."
REPORT_PUSHES = "Push and post-checks"
REPORT_PUSH_COLUMNS = ("device", "result", "when", "lines sha256", "detail", "post-checks")
REPORT_POST_CHECK = "{status}: {detail}"  # a push's post-checks, apart from its own result
REPORT_OUTCOME = "Outcome"
REPORT_LAB = "The lab"
REPORT_PICTURE = "{change_id}: the lab as the change left it"
REPORT_STILL_OPEN = "still open"

# The audit chain's head, posted to LABBOT_AUDIT_CHANNEL when a change ends.
AUDIT_HEAD = (
    "Audit chain head: {rows} rows, last hash `{head}`. "
    "Check it with `labbot audit verify --head {head}`."
)
AUDIT_TABLE = "Audit: {count} record(s)"
AUDIT_NONE = "no audit records match"
# the words last: where a terminal or a chat wraps a long row, only they run on
AUDIT_TABLE_COLUMNS = (
    "seq",
    "when (UTC)",
    "what",
    "change",
    "who",
    "gate/device",
    "sha256",
    "summary",
)
AUDIT_CHAT_COLUMNS = ("when (UTC)", "what", "change", "who", "gate/device", "sha256", "detail")

# One change's audit (bot/audit_view.render_summary): a line each; people's text comes quoted.
AUDIT_REQUESTED = "{kind} {change_id} requested by {name} ({id}) at {at} in {platform}/{channel}"
AUDIT_REQUEST = "  request: {text}"
AUDIT_ROLLS_BACK = "  rolls back: {change_id}"
AUDIT_GATE = "  {gate} gate: {outcome}"
AUDIT_PENDING = "pending"
AUDIT_RESOLVED = "{choice} by {name} ({id}) at {at}, content sha256 {sha}{feedback}"
AUDIT_FEEDBACK = ", feedback: {text}"
AUDIT_VOTE = "    vote: {choice} by {name} at {at}, sha256 {sha}"
AUDIT_PUSH = "  push {device}: {icon} {status} at {at} lines sha256 {sha} — {detail}"
AUDIT_PUSH_POST_CHECK = "; post-checks {icon} {status} — {detail}"  # apart from the push's own
AUDIT_REFUSED = "  refused {name} at {at} ({gate}): {reason}"
AUDIT_AT_REQUEST = "request"
# a later change rolling this one back, by how it ended (its own audit says more)
AUDIT_ROLLED_BACK = "  rolled back by {change_id} (requested by {name} at {at})"
AUDIT_NOT_ROLLED_BACK = (
    "  rollback {change_id} (requested by {name} at {at}) did not roll it back: {status} — {detail}"
)
AUDIT_ROLLBACK_OPEN = "  rollback {change_id} (requested by {name} at {at}) has not ended"
AUDIT_OUTCOME = "  outcome: {status} at {at} — {detail}"
AUDIT_SUMMARY = "Who confirmed it"
# One audit entry in a line (bot/audit_view.entry_summary), by kind: `entry` is the record,
# `detail` its worded detail.
AUDIT_ENTRY: dict[AuditKind, str] = {
    "change": "requested: {entry.text}",
    "rollback": "rollback of {entry.rollback_of} requested: {entry.text}",
    "decision": "{choice} at the {entry.gate} gate{detail}",
    "resolved": "{entry.gate} gate settled: {entry.choice}",
    "refusal": "refused: {detail}",
    "push": "push to {entry.device}: {entry.status}{detail}",
    "event": "{entry.status}{detail}",
    "template": "template: {detail} — change {entry.status}",
    "read": "read on {entry.device}: {entry.text}",
    "agent": "MCP {entry.gate} {entry.text}: {entry.status}",
}
AUDIT_ENTRY_DETAIL = " — {detail}"
AUDIT_ENTRY_POST_CHECK = "; post-checks: {status}{detail}"  # a push's, apart from its own result
AUDIT_EVENT_DETAIL = ": {detail}"
# a choice as the gate's button names it (Approve at the params gate is its Execute button)
AUDIT_CHOICE_WORDS = {
    ("params", "approve"): "execute",
    ("rollback", "approve"): "roll back",
    ("rollback", "cancel"): "keep the change",
}
AUDIT_EVENT_TOKENS = " (LLM tokens: {tokens})"
AUDIT_TEMPLATE_PART = "{ref.name}{version} ({ref.source}) sha256 {sha}"
# `audit …` arguments that cannot be read (bot/commands/parsing.py).
NOT_A_DATE = "{option}: {value!r} is not a date (use 2026-11-30 or 2026-11-30T08:00)"
AUDIT_NOT_KEY_VALUE = "audit: {arg!r} is not KEY=VALUE; keys: change, user, device, since, until"
AUDIT_NEEDS_VALUE = "audit: --{key} needs a value"
AUDIT_UNKNOWN_FILTER = "audit: unknown filter {key!r}; use change, user, device, since, until"
# Where the audit chain breaks (bot/audit_view.chain_break): `labbot audit verify`, the report.
CHAIN_BREAK_AT = "{table}#{row}: {problem}"
CHAIN_BREAK: dict[BreakKind, str] = {
    "seq_gap": "seq {seq} where {expected} was expected: rows before it were deleted",
    "prev_hash": (
        "prev_hash does not match the row before it: the chain was altered before this row"
    ),
    "no_key": (
        "the row is keyed and no key was found: set LABBOT_AUDIT_KEY, or LABBOT_DATA_DIR to the "
        "folder holding audit.key"
    ),
    "unkeyed_after_keyed": "an unkeyed row after keyed ones: the row was rewritten without the key",
    "content": "content does not match its hash: the row was edited after it was written",
    "sealed": (
        "its sealed text cannot be opened with any key of LABBOT_STORAGE_KEY (or LABBOT_DATA_DIR's "
        "storage.key): put the key that sealed it back, after the current one"
    ),
    "truncated": (
        "the database has {seq} audit rows, the anchored head says {expected}: the last rows "
        "were deleted"
    ),
    "rewritten": (
        "row {expected} does not have the anchored hash {head}…: the chain was rewritten"
    ),
}
# `labbot audit verify` and `labbot audit anchor`
VERIFIED = "audit chain intact: {rows} row(s) verified in {where}{against}"
VERIFIED_ANCHORED = ", matching the anchored head {head}…"
VERIFY_BROKEN = "[red]audit chain broken[/red] at {at}"
HEAD_ANCHORS_OTHER = "{file} anchors database {anchored} ({was}), not this one ({this}, {where})"
VERIFY_OTHER_DATABASE = (
    "[red]not verified against the head[/red]: {elsewhere}; its {rows} row(s) are intact row by "
    "row — run `labbot audit anchor` to anchor this one"
)
HEAD_OF_ANOTHER_DATABASE_KEPT = (
    "the audit head file {file} anchors another database and is left as it is: run "
    "`labbot audit anchor` to anchor this one"
)
ANCHORED = "anchored {where}: {rows} row(s), head {head}… written to {file}"
ANCHOR_REFUSED = "[red]not anchored[/red]: the audit chain of {where} is broken at {at}"
# Reading commands never create a database (bot/records/place.py).
NO_DATABASE = (
    "no database at {where}: nothing was recorded there — LABBOT_DATA_DIR (now {data_dir}) or "
    "LABBOT_DATABASE_URL says where labbot keeps its records"
)
DEMO_RECORDS_HERE = "; the demo's records are in {data_dir}: `LABBOT_DATA_DIR={data_dir} labbot …`"
NO_SCHEMA = "{where} holds no labbot tables: run `labbot db upgrade`, or fix LABBOT_DATABASE_URL"
AUDIT_EMPTY = "no audit records in {where}"
PENDING_NONE_IN = "nothing open in {where}"
REPORT_WRITTEN = "wrote {path}: {count} change(s){of_lab} from {where}; {chain}"
REPORT_WRITTEN_LAB = " of lab {lab}"
REPORT_WRITTEN_CHAIN = {
    True: "the audit chain is intact",
    False: "the audit chain is BROKEN (`labbot audit verify` names the first altered row)",
}

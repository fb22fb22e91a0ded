"""Every text labbot says to people, in one place."""

from __future__ import annotations

from base.vocabulary import Choice, GateProblem, Status, TargetProblem
from workflow.endings import EndKind, Stage

HELP = """\
I change your lab safely: I propose a template, you approve it, I propose per-device
parameters, you approve the rendered preview, then I push and report each device here.

Ask for a change in plain words, for example:
  configure OSPF area 0 on all routers
  apply ntp to R1,R2 servers=10.0.0.1
Commands:
  help                      this text
  templates [NAME[@V]]      the template library (built-in and saved), or one template
  templates history|stats   versions of a saved template; uses, success, tokens
  templates diff A@1 A@2    what changed between two versions
  templates pin NAME@V      use that version in this channel (templates unpin NAME)
  save as NAME [TEXT]       save the template approved in this thread (TEXT: description)
  audit [change=ID] [user=U] [device=R1] [since=DATE] [until=DATE]
                            who confirmed which change
  audit report [since=DATE] [change=ID]
                            the same as an HTML report, attached
  status                    the pending step of this thread
  pending                   the open steps you may decide, and your own open changes
  topology                  a picture of the lab from its links
  lab                       the devices (platform, kind, address, reachable now) and the picture
  cancel                    cancel the pending change of this thread
  rollback CHANGE_ID        propose undoing a pushed change (needs approval too)
  show … on R1,R2 [raw]     read-only commands (show, display, bounded ping), no approval;
                            a parsed table where one exists, the device's text with `raw`
  run CLI-COMMAND on R1     the same, for any CLI read the platform's allow-list takes
  neighbours|routes|interfaces|bgp summary|version on R1
                            the same question asked in each device's own words"""

DEMO_WELCOME = (
    "labbot demo — a simulated lab of {count} devices on 127.0.0.1, console chat, SQLite at "
    "{db}.\nTry: `configure ospf on all routers`, then `as bob` (someone other than the "
    "requester approves) and 1 (approve), 2 (modify), 3 (cancel); `audit`; `help`; `quit` (or "
    "Ctrl-D) to end."
)

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
GATE_PROBLEM: dict[GateProblem, str] = {"stale": STALE_GATE, "changed": CHANGED_GATE}
EXPIRED_GATE = "This step expired at {at}; nothing was pushed. Ask again to start over."
# Why a change ended (workflow/endings.py, worded by bot/endings.py), after its title
# ("Change … failed: "); each ending's fields fill the blanks of its kind.
ENDED: dict[EndKind, str] = {
    "expired": "the {gate} review expired at {at}; {pushed}. Ask again to start a new change.",
    "cancelled": "{actor} cancelled the change at the {gate} review; {pushed}.",
    "targets": "which devices? {targets}; nothing was read or pushed",
    "lab_unreadable": "could not read the lab: {error}",
    "no_usable_device": "no usable device in the lab ({devices})",
    "nothing_to_roll_back": "change {change_id} left nothing to roll back",
    "planner_failed": "the planner could not propose {stage}: {error}",
    "still_invalid": (
        "the {stage} proposal was still invalid after {attempts} attempt(s); nothing was "
        "pushed:\n{errors}"
    ),
    "devices_held": "{held}",
    "hash_mismatch": (
        "refused to push: the plan's hash {planned} is not the one approved ({approved}); "
        "nothing was pushed"
    ),
    "push_refused": "refused to push, nothing was sent: {refusals}",
    "push_not_started": "the push could not start: {error}",
    "rollback_not_started": (
        "post-checks failed ({failures}); the rollback could not start: {error}"
    ),
    "post_checks_not_run": "the post-checks could not run: {error}",
    "pushed": "pushed to {ok} of {total} devices",
}
LAB_UNREADABLE_AGAIN = "could not read the lab again: {error}"
ROLLBACK_REFUSED = "refused to roll back, nothing was sent: {refusals}"
ROLLBACK_PUSHED = "rollback pushed to {ok} of {total} devices"
PUSH_FAILED_ON = "; failed: {failures}"
DEVICE_FAILED = "{device}: {error}"
NONE_FOUND = "none found"
PROPOSAL_OF: dict[Stage, str] = {"template": "a template", "parameters": "parameters"}
DEVICE_HELD = (
    "{device} is held by change {change_id} from its preview until its push ends; nothing was "
    "pushed — ask again once that change is done"
)
REFUSED_LINE = {
    "deny_list": "{device}: {line!r} is not allowed ({detail})",
    "sections": "{device}: `{line}` is outside the sections the template may touch ({detail})",
}
TARGET_PROBLEM: dict[TargetProblem, str] = {
    "none_named": (
        "name the devices: `on R1,R2`, `on R*`, `on all routers` or `on all` (lab devices: {known})"
    ),
    "no_match": "no device matches {word!r} (lab devices: {known})",
    "unknown": "there is no device {word!r} (lab devices: {known})",
    "no_kind": "the lab has no {word} (lab devices: {known})",
    "too_many": (
        "the request selects {count} devices, more than any change may "
        "(LABBOT_MAX_TARGETS_CONFIRMED={limit}); name fewer devices"
    ),
}
NEWER_AT_END = "A newer version exists: {versions}; this change keeps what was approved."
NEWER_VERSION = "{name}@{newest} (this change uses @{used})"
NOTHING_PUSHED = "nothing was pushed"
# How the offer to roll back failed post-checks ended (workflow.endings.RollbackEnding).
ROLLBACK_ENDED = {
    "expired": (
        "post-checks failed ({failures}); the rollback review expired at {at}, the change stays "
        "as pushed."
    ),
    "kept": "post-checks failed ({failures}); {actor} kept the change as pushed (no rollback).",
    "rolled_back": "post-checks failed ({failures}); rolled back as approved by {actor}.",
}
NOTHING_MORE_PUSHED = "nothing more was pushed"
PENDING_IN_THREAD = (
    "A change is already waiting for a decision in this thread ({change_id}). "
    "Decide it or type `cancel` first."
)
PICTURE_TARGETS = "{change_id}: the devices this change touches (blue)"
PICTURE_RESULTS = "{change_id}: the push, device by device"
PICTURE_LAB = "The lab: {count} device(s)"
LAB_INVENTORY = "The lab: {count} device(s), {up} answering now."
LAB_UNREACHABLE = "Unreachable: {devices} (no connection to the address or console below)."
LAB_COLUMNS = ("device", "platform", "kind", "address", "reachable")
LAB_ANSWERS = "yes"
LAB_NO_ANSWER = "NO: {why}"
LAB_EMPTY = "(the inventory lists no device)"
NO_PICTURE = "I cannot draw the lab now (no inventory, or it could not be read); see the log."
HOME_WAITING = "Waiting for you"
HOME_NOTHING_WAITING = "Nothing waits for your decision."
HOME_MINE = "Your open changes"
HOME_NOTHING_MINE = "You have no open change."
HOME_RECENT = "Recent changes"
HOME_NO_RECENT = "No change yet."
HOME_RECENT_LINE = "• {change_id} — {status} — {requester}: “{text}” — {at} — {link}"
REPORT_ATTACHED = (
    "Audit report: {count} change(s); the audit chain is {chain}. The HTML file is attached."
)
CHAIN_OK = "intact"
CHAIN_BROKEN = "BROKEN (the report names the first altered row)"
PENDING_TO_DECIDE = "Waiting for you: {count} step(s) you may approve."
PENDING_REQUESTED = "Your open changes: {count}."
PENDING_LINE = (
    "• {change_id} — {gate} step — requested by {requester} — {devices} — waiting {age} — "
    "expires {expires} — {link}"
)
PENDING_EXPIRED = "now (expired; a decision ends it)"
PENDING_MORE = "… and {count} more."
NOTHING_PENDING = "Nothing is waiting for a decision in this thread."
VOTE_RECORDED = "Approval by {actor} recorded ({count} of {required}); waiting for {missing}."
REFUSED = "Refused: {reason}."
PLANNING = "Working on it: reading the lab and preparing a template for “{text}”…"
ROLLBACK_PLANNING = "Preparing a rollback of {change_id}…"
TEMPLATE_TOKENS = "\nLLM tokens for this template: {total} ({how})."
TOKENS_MEASURED = "measured by the endpoint"
TOKENS_ESTIMATED = "estimated: the endpoint reports no usage"
LLM_CHECK_NO_KEY = (
    "OPENAI_API_KEY is not set, so the built-in template library plans changes; set it (any "
    "value for a local server) and OPENAI_BASE_URL to use an LLM"
)
LLM_CHECK_REPORT = (
    "endpoint  {endpoint}\n"
    "model     {model}\n"
    "strategy  {strategy} (LABBOT_LLM_OUTPUT={mode}){tried}\n"
    "latency   {seconds:.2f} s\n"
    "tokens    {input} in + {output} out = {total} ({how})\n"
    "answer    {answer}\n"
    "OK: this endpoint can plan changes."
)
LLM_CHECK_REFUSED = "\n          not {why}"
LLM_WRITING = "(the model has been writing for {seconds:.0f} s{tokens})"
LLM_TOKENS_SO_FAR = ", about {tokens} tokens so far"
DECIDED_FOOTER: dict[Choice, str] = {
    "approve": "✅ Approved by {actor} at {at}",
    "modify": "✏️ Modification requested by {actor} at {at}: {feedback}",
    "cancel": "❌ Cancelled by {actor} at {at}",
}
EXPIRED_FOOTER = "⌛ Expired at {at}; nothing was pushed"
CHOICE_PAST: dict[Choice, str] = {
    "approve": "approved",
    "modify": "sent back for changes",
    "cancel": "cancelled",
}
FINISHED_TITLE: dict[Status, str] = {
    "done": "Change {change_id} pushed",
    "cancelled": "Change {change_id} cancelled",
    "expired": "Change {change_id} expired",
    "failed": "Change {change_id} failed",
    "blocked": "Change {change_id} blocked",
}
# labbot stopped (SIGTERM) before a push finished: per device, and for the change and thread.
PUSH_CUT_SHORT = {
    "success": "pushed before labbot stopped (not verified after)",
    "failed": "failed before labbot stopped",
    "interrupted": "interrupted: labbot stopped during the push; check the device",
}
INTERRUPTED_DETAIL = "labbot stopped before the push finished"
INTERRUPTED = (
    "⚠️ Change {change_id}: labbot was stopped during the push and could not wait for it. "
    "Interrupted on: {devices} — check those devices (`show running-config`); `audit "
    "change={change_id}` shows each device's state. Their locks are released: to retry, "
    "ask again in a new message (this change's buttons push nothing more)."
)
DATABASE_DOWN = "cannot reach the database; nothing was decided or pushed — try again"
UNEXPECTED = (
    "Something went wrong on my side; nothing more was done for this step. The details are in "
    "labbot's log; `status` shows where this thread stands."
)
UNKNOWN_CHANGE = "No change {change_id} is on record."
ROLLBACK_USAGE = "Usage: rollback CHANGE_ID (see `audit` for change ids)."

SAVE_USAGE = (
    "Usage: save as NAME [description]: saves the template approved in this thread as the next "
    "version of NAME (`save as NAME@3` asks for version 3)."
)
NOTHING_APPROVED = (
    "Nothing to save here: `save as NAME` saves the template approved in this thread. Approve "
    "a template gate first (or ask for a change and approve its template)."
)
SAVE_ROLLBACK = "A rollback's literal lines are not a template; nothing was saved."
SAVE_BUILTIN = (
    "{name} is a built-in template; save under another name (e.g. {name}_lab). Nothing was saved."
)
SAVE_TEST_FAILED = (
    "Not saved: the template test failed on a simulated copy of {device}:\n{errors}\n"
    "Fix the template (Modify at its gate) and save the approved one."
)
SAVED = (
    "Saved {label} (sha256 {sha}), the template approved in change {change_id} (approved "
    "content sha256 {approved}). Reuse it: `apply {name} to R1,R2`."
)
ALREADY_SAVED = (
    "This template is already saved as {label} (sha256 {sha}, by {who} at {at}); nothing new "
    "was stored."
)
VERSION_SKIPS = "{name}@{version} cannot be saved: the next version of {name} is {next}."
VERSION_TAKEN = (
    "{name}@{version} already exists{who}; versions never change, so nothing was stored: save "
    "without a version to make it {name}@{next}."
)
VERSION_TAKEN_BY = " (saved by {who} at {at})"
VERSION_RACE = (
    "{name} was saved by someone else at the same moment; nothing was stored: save again to get "
    "the next version."
)
NO_SAVED = "There is no saved template {name!r}. Saved: {known}."
NO_VERSION = "There is no {name}@{version}: {name} has version(s) {versions}."
PIN_USAGE = "Usage: templates pin NAME@VERSION (templates unpin NAME)."
PINNED = "In this channel `{name}` now means {name}@{version} (until `templates unpin {name}`)."
UNPINNED = "`{name}` means its latest version in this channel again."
NOT_PINNED = "{name} is not pinned in this channel."
DIFF_USAGE = "Usage: templates diff NAME@A NAME@B (or NAME A B)."

POST_CHECK_TEXT = {
    "ospf_neighbors": "OSPF: the neighbour on every link between targets is Full",
    "loopback_routes": "every other target's loopback is in the routing table{protocol}",
    "bgp_sessions": "BGP: every neighbour in `{param}` is Established",
    "bgp_prefixes": "BGP: the `{param}` each peer among the targets announces are received",
    "routes": "the routes in `{param}` are installed{protocol}",
}
POST_CHECKS_TITLE = "Post-checks after the push (wait up to {timeout:g} s)"
TOO_LONG = (
    "Refused: that message is {size:,} characters long; the limit is {limit:,} "
    "(LABBOT_MAX_REQUEST_CHARS). Nothing was stored."
)
READ_RESULT = "`{command}` on {devices}: ✓ {ok} ✗ {failed}"
NO_LLM_QUESTION = (
    "Without an LLM I answer these questions: neighbours, routes, interfaces, bgp summary or "
    "version `on R1,R2` — or type the read itself (`show ip route on R1`). With OPENAI_API_KEY "
    "set I can read the lab to answer questions in plain words."
)
DIAGNOSIS_READS = "Reads I used: {reads}"
DIAGNOSIS_PROPOSAL = "I propose a change, which needs the usual approvals: {proposal}"
DEVICE_COMMAND = (
    "that is a device command that {why}, not a read: I run only `show` and bounded "
    "`ping`/`traceroute` without approval, and a change is asked for in words "
    "(`configure ospf area 0 on R1`); nothing was sent to any device"
)
TOO_MANY_READS = (
    "you sent {count} device read(s) in the last minute and this asks {asked} more; the limit "
    "is {limit} a minute (LABBOT_MAX_READS_PER_MINUTE)"
)
TOO_MANY_OPEN_BY_USER = (
    "you have {count} changes waiting already (LABBOT_MAX_OPEN_PER_USER); finish or cancel one"
)
TOO_MANY_OPEN_IN_CHANNEL = (
    "{count} changes are waiting here already (LABBOT_MAX_OPEN_PER_CHANNEL); finish or cancel one"
)
VOTE_WAITING_PEOPLE = "{count} more approval(s) by someone other than the requester"
VOTE_WAITING_OWNERS = "an approval by an owner of {devices}"
NO_RULES_WARNING = (
    "no approval rule is set (LABBOT_OWNERS, LABBOT_APPROVERS, LABBOT_APPROVERS_BY_CHANNEL): "
    "anyone in a channel or room except the requester may approve; direct messages are refused"
)
# The audit report (bot/report_html.py): plain text, escaped where it is put in the page.
REPORT_TITLE = "labbot audit report"
REPORT_SINCE = "since {at}"
REPORT_ONE_CHANGE = "change {change_id}"
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
REPORT_TEMPLATE_COLUMNS = ("name", "version", "source", "sha256")
REPORT_DIFFS = "Per-device diff"
REPORT_DECISIONS = "Decisions"
REPORT_DECISION_COLUMNS = ("gate", "choice", "who", "when", "content sha256", "feedback")
REPORT_NO_REFUSALS = "No refusals."
REPORT_REFUSALS = "Refusals"
REPORT_REFUSAL_COLUMNS = ("gate", "who", "when", "reason")
REPORT_NOTHING_PUSHED = "Nothing was pushed."
REPORT_PUSHES = "Push and post-checks"
REPORT_PUSH_COLUMNS = ("device", "result", "when", "lines sha256", "detail")
REPORT_OUTCOME = "Outcome"
REPORT_STILL_OPEN = "still open"

# `labbot policy check USER DEVICE…` (bot/policy_check.py): one line each.
POLICY_RULES = (
    "Rules: {rules}. Approvals needed: template {template}, push {push} (distinct people other "
    "than the requester)."
)
POLICY_NO_RULES = "no rule (anyone in a channel/room except the requester; no direct messages)"
POLICY_OWNERS_FILE = "owners file ({count} rule(s))"
POLICY_APPROVERS = "LABBOT_APPROVERS ({count})"
POLICY_PLACE_LISTS = "lists for {places}"
POLICY_WHO_WHERE = "{who} in {where}:"
POLICY_POWER = "power {power}"
POLICY_DIRECT = "a direct message ({channel})"
POLICY_ANY_CHANNEL = "(any channel)"
POLICY_PLACE_CLOSED = "  place: nobody may decide here — {reason}"
POLICY_PLACE_OPEN = "  place: anyone here may decide (no list for this place)"
POLICY_PLACE = {  # is the person on the place's list?
    True: "  place: may decide here (listed: {listed})",
    False: "  place: may NOT decide here (listed: {listed})",
}
POLICY_NOBODY = "nobody"
POLICY_REQUESTS = {
    True: "  requests: may start changes (LABBOT_REQUESTERS)",
    False: "  requests: may NOT start changes (LABBOT_REQUESTERS)",
}
POLICY_DEVICE = "  {device}: {verdict}"
POLICY_NO_OWNERS_FILE = "no owners file: the place decides"
POLICY_NO_OWNER_LINE = "nobody may approve — no line of LABBOT_OWNERS matches it"
POLICY_OWNER = {  # is the person named by the device's owners line?
    True: "may approve — an owner by {rule}",
    False: "may NOT approve — owners by {rule}",
}
POLICY_OWN_CHANGES = {  # LABBOT_ALLOW_SELF_APPROVAL
    True: "  own changes: their own approval counts (LABBOT_ALLOW_SELF_APPROVAL=true)",
    False: "  own changes: someone else must approve them (four-eyes)",
}

# The gates (bot/presenter.py); each note starts a new line of the gate's text.
TARGETS_GATE = (
    "*Confirm the devices* for change {change_id}: the request selects *{count}* devices, "
    "more than LABBOT_MAX_TARGETS ({limit}). Nothing has been read from them yet. *Confirm* "
    "(an approver other than the requester, an owner of every one) goes on to the template step."
)
SECTION_TARGETS = "Devices selected ({shown} of {count} shown)"
TARGETS_MORE = "… and {count} more: {names}"
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
TEMPLATE_TEST_SKIPPED = (
    "\nTemplate test on a simulated copy of {device} ({family}): not run, {why}."
)
TEMPLATE_TEST_FAILED = (
    "\n⚠️ Template test on a simulated copy of {device} ({family}): {refused} of {lines} "
    "line(s) refused; the real device would likely refuse them too."
)
TEMPLATE_TEST_PASSED = (
    "\n✓ Template test on a simulated copy of {device} ({family}): {lines} line(s) accepted."
)
NEWER_AT_GATE = "\nℹ️ A newer version exists ({versions}); this change uses what you approve here."
DENY_LIST_AT_GATE = "\n⚠️ {count} line(s) match the deny-list; Execute will be refused."
ROLLBACK_GATE = (
    "*Post-checks failed* for change {change_id} on {failed} (of {total} checked). "
    "Roll back returns each device below to its configuration before the change; "
    "Keep leaves the change as pushed."
)
ROLLBACK_CONFIRM = "Push these rollback lines now?"

# Refusing to start: replicas on one database each generating their own audit key.
AUDIT_KEY_REQUIRED = (
    "LABBOT_AUDIT_KEY is not set: with a shared database (PostgreSQL) every replica must key "
    "the audit chain alike; set it to one secret for all of them, kept outside the database "
    "(e.g. `openssl rand -hex 32`)"
)
# The audit chain's head, posted to LABBOT_AUDIT_CHANNEL when a change ends.
AUDIT_HEAD = (
    "Audit chain head: {rows} rows, last hash `{head}`. "
    "Check it with `labbot audit verify --head {head}`."
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
SECTION_EXAMPLE_FACTS = "Example facts ({family})"
SECTION_EXAMPLE_RENDERING = "Example rendering ({family})"
SECTION_EXAMPLE_PARAMS = "Example parameters"
SECTION_TEST_FAILED = "Template test failed ({device}, {family})"
SECTION_BLOCKED = "Blocked lines"
SECTION_UNUSABLE = "Not used (the reason)"
SECTION_DEVICE_PARAMS = "{device} parameters"
SECTION_DEVICE_FACTS = "{device} facts"
SECTION_DEVICE_LINES = "{device} configuration"
SECTION_DEVICE_DIFF = "{device} diff against running config"
SECTION_POST_CHECKS = "{icon} {device} post-checks"
SECTION_ROLLBACK_LINES = "{device} rollback lines"
SECTION_LIBRARY = "Template library"
CATALOG = "{count} templates. Use one: `apply NAME to R1,R2 key=value …`; see `templates NAME`."
TEMPLATE_SHOWN = "Template `{name}`: {description}"
PUSH_PROGRESS = "Pushing change {change_id}: {done}/{total} device(s) finished"
RESULT_SUMMARY = "{title}: ✓ {ok} ✗ {failed} of {total}"
NO_OUTPUT = "(no output)"
NONE = "(none)"
SAVED_TEMPLATE_SHOWN = (
    "Template `{label}`: {description}\nsaved by {who} at {at}{origin} · sha256 {sha}"
)
FROM_CHANGE = ", from change {change_id}"
TEMPLATE_HISTORY = "{name}: {count} version(s), newest last"
TEMPLATES_SAME = "{old} and {new} have the same content."
TEMPLATES_DIFF = "What changed from {old} to {new}"
TEMPLATE_STATS = (
    "Template use: {changes} change(s); tokens spent {spent}, saved by reusing saved templates "
    "{saved}. Devices: successful pushes / pushes."
)
AUDIT_TABLE = "Audit: {count} record(s)"
AUDIT_NONE = "no audit records match"
AUDIT_CHAT_COLUMNS = ("when (UTC)", "what", "change", "who", "gate/device", "detail", "sha256")
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
AUDIT_REFUSED = "  refused {name} at {at} ({gate}): {reason}"
AUDIT_AT_REQUEST = "request"
AUDIT_ROLLED_BACK = "  rolled back by {change_id} (requested by {name} at {at})"
AUDIT_OUTCOME = "  outcome: {status} at {at} — {detail}"
AUDIT_SUMMARY = "Who confirmed it"

"""What labbot says anywhere: help, the demo, a request being worked on, refusals and
faults, limits, the LLM's progress and checks."""

from __future__ import annotations

HELP_INTRO = """\
I change your lab safely: I propose a template, you approve it, I propose per-device
parameters, you approve the rendered preview, then I push and report each device here.

Ask for a change in plain words, for example:
  configure OSPF area 0 on all routers
  apply ntp to R1,R2 servers=10.0.0.1
Commands:"""
# each command's lines in `help`, at its declaration (bot/commands/); `help` lists them in the
# order of bot/commands/registry.py
HELP_HELP = "  help                      this text"
HELP_STATUS = "  status                    the pending step of this thread"
HELP_CANCEL = "  cancel                    cancel the pending change of this thread"
HELP_DECIDE = """\
  approve|modify|cancel CHANGE_ID [: TEXT]
                            decide an open change by its id (`pending` lists them)"""
HELP_ROLLBACK = "  rollback CHANGE_ID        propose undoing a pushed change (needs approval too)"
CONSOLE_HELP = """

At this console:
  as NAME                   speak as NAME (the demo: anyone; else LABBOT_CONSOLE_USERS)
  1 / 2 / 3                 press the latest gate's buttons
  clear                     clear the screen (`cls` too)
  quit                      end the session (Ctrl-D too; Ctrl-C clears the line, twice quits)"""
SCRIPT_UNREADABLE = "--script: cannot read {path!r}: {why}"
DEMO_LAB = "the demo's simulated lab"  # how its changes name their lab (bot.policy.authorize)
DEMO_WELCOME = (
    "labbot demo — a simulated lab of {count} devices on 127.0.0.1, console chat, SQLite at "
    "{db} (the demo's own place: `LABBOT_DATA_DIR={data_dir} labbot audit` reads it).\nTry: "
    "`configure ospf on all routers`, then `as bob` (someone other than the "
    "requester approves) and 1 (approve), 2 (modify), 3 (cancel); `audit`; `help`; `quit` (or "
    "Ctrl-D) to end."
)
CONSOLE_WELCOME = (
    "labbot console — {lab}, database {db}, you are {user}.\nType a change request "
    "(`configure ospf on all routers`), 1 (approve), 2 (modify), 3 (cancel) at a gate; `as "
    "NAME` to be someone LABBOT_CONSOLE_USERS lists ({seats}); `help`; `quit` (or Ctrl-D) to end."
)
CONSOLE_LAB_GNS3 = "GNS3 project {project} at {url}"
CONSOLE_LAB_FILE = "the lab in {path}"
CONSOLE_LAB_NAMED = "lab {name} of LABBOT_LABS: "
NO_SEATS_LISTED = "nobody yet"
SESSION_CLEAN = "Starting clean: no change from an earlier session waits for a decision."
SESSION_RESUMED = (
    "Resuming: {count} change(s) from earlier sessions wait for a decision ({changes}); decide "
    "one by its id, e.g. `approve {first}` or `cancel {first}` (`pending` lists yours)."
)
SESSION_GATE = "{change_id} at the {gate} gate"
SESSION_LEFT_WAITING = (
    "Leaving {count} change(s) waiting for a decision ({changes}): they stay pending, nothing "
    "is pushed. The next session on this database resumes them (`approve {first}` or `cancel "
    "{first}`; `pending` lists them)."
)
PENDING_IN_THREAD = (
    "A change is already waiting for a decision in this thread ({change_id}). "
    "Decide it or type `cancel` first."
)
NOT_WAITING = "Change {change_id} is not waiting for a decision (see `pending`)."
MODIFY_BY_ID_USAGE = "Say what should change: `modify {change_id}: TEXT`."
REFUSED = "Refused: {reason}."
# Never quotes the request: it is right above in the thread, and it may hold a secret value.
PLANNING = "Working on it: reading the lab and preparing a template for this request…"
ROLLBACK_PLANNING = "Preparing a rollback of {change_id}…"
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
MODEL_WRITING = "Working on it…"  # a resumed step asking the model again
LLM_WRITING = "(the model has been writing for {seconds:.0f} s{tokens})"
LLM_TOKENS_SO_FAR = ", about {tokens} tokens so far"
DATABASE_DOWN = "cannot reach the database; nothing was decided or pushed — try again"
UNEXPECTED = (
    "Something went wrong on my side; nothing more was done for this step. The details are in "
    "labbot's log; `status` shows where this thread stands."
)
UNKNOWN_CHANGE = "No change {change_id} is on record."
ROLLBACK_USAGE = "Usage: rollback CHANGE_ID (see `audit` for change ids)."
ROLLED_BACK_ALREADY = (
    "{change_id} was rolled back already ({by}): a second rollback would push its backups again "
    "over what the devices hold now. To set something again, ask for it as a new change."
)
# A decision or rollback on a change made on another lab (bot.policy.authorize.refuse_other_lab); a
# sentence inside REFUSED.
OTHER_LAB = (
    "{change_id} was made on {made_on}, and this bot serves {here}: its lines and backups are that "
    "lab's, whatever the devices are called here — decide or roll it back where it was made"
)
TOO_LONG = (
    "Refused: that message is {size:,} characters long; the limit is {limit:,} "
    "(LABBOT_MAX_REQUEST_CHARS). Nothing was stored."
)
TOO_MANY_OPEN = {
    "user": "you have {count} changes waiting already (LABBOT_MAX_OPEN_PER_USER); finish or "
    "cancel one",
    "channel": "{count} changes are waiting here already (LABBOT_MAX_OPEN_PER_CHANNEL); finish "
    "or cancel one",
    "overall": "{count} changes are waiting across the team already (LABBOT_MAX_OPEN); finish "
    "or cancel one",
}
NO_RULES_WARNING = (
    "no approval rule is set (LABBOT_OWNERS, LABBOT_APPROVERS, LABBOT_APPROVERS_BY_CHANNEL): "
    "anyone in a channel or room except the requester may approve; direct messages are refused"
)

# Refusing to start: replicas on one database each generating their own audit key.
AUDIT_KEY_REQUIRED = (
    "LABBOT_AUDIT_KEY is not set: with a shared database (PostgreSQL) every replica must key "
    "the audit chain alike; set it to one secret for all of them, kept outside the database "
    "(e.g. `openssl rand -hex 32`)"
)
# Refusing to start: device text would be sealed with a key each replica made up for itself.
STORAGE_KEY_REQUIRED = (
    "LABBOT_STORAGE_KEY is not set: with a shared database (PostgreSQL) every replica must "
    "seal device configurations and audit text with one key, kept outside the database (make "
    "one with `labbot db new-key`)"
)
# Refusing to read the audit: its text is sealed with the key the replicas run with.
STORAGE_KEY_TO_READ = (
    "LABBOT_STORAGE_KEY is not set: the audit's text in a shared database (PostgreSQL) is sealed "
    "with it; set it to the key(s) `labbot serve` runs with (a new key opens nothing)"
)
# Refusing to start: a wrong key would seal new rows beside ones it cannot open.
STORAGE_KEY_WRONG = (
    "LABBOT_STORAGE_KEY does not open what this database sealed last ({table}): set it to the "
    "key(s) labbot last ran with (or put LABBOT_DATA_DIR's storage.key back); to rotate, put the "
    "new key first and the old one after it until `labbot db reseal`"
)
STORAGE_KEY_MALFORMED = (
    "LABBOT_STORAGE_KEY: each comma-separated key must be 32 url-safe base64-encoded bytes "
    "(make one with `labbot db new-key`)"
)
NO_OUTPUT = "(no output)"
NONE = "(none)"

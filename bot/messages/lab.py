"""The lab: pictures, the inventory, reads and questions answered from them."""

from __future__ import annotations

from base.vocabulary import ReadProblem

# the lab's commands' lines in `help`: `topology`, `lab`, the reads and the questions
HELP_TOPOLOGY = "  topology                  a picture of the lab from its links"
HELP_LAB = (
    "  lab                       the devices (platform, kind, address, reachable now) and the "
    "picture"
)
HELP_READS = """\
  show … on R1,R2 [raw]     read-only commands (show, display, bounded ping), no approval;
                            a parsed table where one exists, the device's text with `raw`
  run CLI-COMMAND on R1     the same, for any CLI read the platform's allow-list takes"""
HELP_QUESTIONS = """\
  neighbours|routes|interfaces|bgp summary|version on R1
                            the same question asked in each device's own words"""
PICTURE_TARGETS = "{change_id}: the devices this change touches (blue)"
PICTURE_RESULTS = "{change_id}: the push, device by device"
PICTURE_LAB = "The lab: {count} device(s)"
# the picture's legend: what each device colour, link colour and shape means
PICTURE_ROLES = {
    "target": "changed by this request",
    "other": "not touched",
    "pushed": "pushed, not checked",
    "passed": "post-checks passed",
    "failed": "push failed",
    "postcheck_failed": "post-check failed",
}
PICTURE_LINKS = {
    "up": "OSPF Full / BGP Established",
    "down": "session down",
    "unchecked": "link not checked",
}
PICTURE_SUBNETS_DIFFER = "{a} != {b}"  # a link whose two ends are numbered in different subnets
PICTURE_SHAPES = {"router": "router", "switch": "switch", "host": "host", "other": "other"}
LAB_INVENTORY = "The lab: {count} device(s), {up} answering now."
LAB_UNREACHABLE = "Unreachable: {devices} (no connection to the address or console below)."
LAB_COLUMNS = ("device", "platform", "kind", "address", "reachable")
LAB_ANSWERS = "yes"
LAB_NO_ANSWER = "NO: {why}"
LAB_EMPTY = "(the inventory lists no device)"
LINK_ENDS = "{a_device} {a_interface} — {b_device} {b_interface}"
SECTION_LINKS = "Links (the interface at each end)"
LAB_MORE = "… and {count} more devices"  # the inventory table is cut (workflow.reads.tables)
NO_PICTURE = "I cannot draw the lab now (no inventory, or it could not be read); see the log."
# a picture or file that could not be drawn or uploaded: the message above it stands without it
PICTURE_NOT_ATTACHED = "The lab picture could not be attached (see the log); the rest is above."
FILES_NOT_ATTACHED = "Could not attach {names} (see the log); the rest is above."
READ_RESULT = "`{command}` on {devices}: ✓ {ok} ✗ {failed}"
READ_MORE_ROWS = "… {count} more rows (ask with `raw` for all)"  # a read's table is cut
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
NO_READS = "none"
READ_CUT = "… {lines:,} lines, {size:,} characters in all: the whole output is in the file {file}"
READ_TOO_BIG = (
    "the output is {size:,} characters long, over the limit of {limit:,} "
    "(LABBOT_READ_MAX_CHARS); it is not shown: narrow the command (e.g. `| section router`)"
)
READ_BUDGET_SPENT = (
    "reads in this channel have posted {spent:,} characters in the last minute and this one "
    "would post {asked:,} more; the limit is {limit:,} a minute (LABBOT_READ_CHANNEL_BUDGET)"
)

# Why a read is refused (base.errors.ReadRefused); `allowed` lists what is allowed instead.
READ_REFUSED: dict[ReadProblem, str] = {
    "platform": "reads on {word} are not supported",
    "no_command": "no command given",
    "needs_object": "`{word}` needs what to show (`{word} ip route`)",
    "unsafe": "a read may not contain {allowed}: only one plain command line",
    "probe_unbounded_tool": (
        "`{word}` in FRR's vtysh takes only an address and runs the host's tool until it ends "
        "or is interrupted — no count or timeout can be given — so it is not run"
    ),
    "probe_not_offered": "`{word}` is not offered here: its count and timeout cannot be set",
    "not_a_read": "`{word}` is not a read: only {allowed} commands are run without approval",
    "prints_secrets": (
        "`{word}` {value}: no mask can tell them in its output, so it is not run "
        "(`show running-config` shows them masked)"
    ),
    "no_filter": "`|` must be followed by a filter",
    "not_a_filter": "`| {word}` is not an output filter: only {allowed}",
    "needs_pattern": "`| {word}` needs a pattern",
    "needs_value": "`{word} … {option}` needs a value",
    "bad_option": "`{word}` option `{option}` is not allowed (only {allowed})",
    "out_of_bounds": "`{word} … {option} {value}` is out of bounds: at most {limit}",
    "needs_address": "`{word}` needs an address: `{word} 10.0.0.1`",
    "no_devices": "say which devices: `show ip route on R1,R2` (or `on all routers`)",
    "no_question_command": "I know no {value} command for {word}",
    "too_many": (
        "{count} devices is more than the {limit} a read may ask at once (LABBOT_MAX_TARGETS); "
        "name fewer"
    ),
}
# How each allowed item is listed (the others as they are; refused characters as Python shows).
READ_ALLOWED_ITEM: dict[ReadProblem, str] = {
    "not_a_read": "`{item}`",
    "not_a_filter": "`| {item}`",
}
READ_REFUSED_ON = "{device}: {reason}"
THIS_PLATFORM = "this platform"

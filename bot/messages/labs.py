"""Many labs: the labs file (LABBOT_LABS), its pods, and a place that is no lab's."""

LABS_FILE_LINE = "LABBOT_LABS: {path} line {line}: {what}: {problem}"
LABS_NOT_YAML = "LABBOT_LABS: {path} line {line}: not YAML: {problem}"
LABS_NO_FILE = "LABBOT_LABS: no such file {path!s}"
LABS_UNREADABLE = "LABBOT_LABS: cannot read {path!s}: {why}"
LABS_EMPTY = "LABBOT_LABS: {path!s} names no lab: give `labs:` (each lab) or `pods:` (a group)"
LABS_NOT_A_MAPPING = "must be a mapping of names to settings (`key: value` lines)"
LABS_TWICE = "given twice"
LABS_UNKNOWN_KEY = "unknown key {key!r} (known: {known})"
LABS_NOT_TEXT = "must be a word or a path, not empty or a list"
LABS_NOT_A_NUMBER = "must be a whole number of at least {lowest}"
LABS_BAD_NAME = "{name!r} is not a lab name: letters, digits, `-`, `_` and `.`"
LABS_LITERAL_SECRET = (
    "a secret is never written in the labs file: name the environment variable holding it "
    "(`{key}: LAB_PASSWORD`, then `export LAB_PASSWORD=…`)"
)
LABS_REFERENCE_UNSET = "{name} is not set: export it (or set the labbot setting of that name)"
LABS_ONE_SOURCE = (
    "a lab needs exactly one source — `inventory:` (a Nornir hosts file or a containerlab lab), "
    "`containerlab:` or `gns3: {{url, project}}` — found: {given}"
)
LABS_ONE_POD_SOURCE = (
    "a pod group needs exactly one source — `gns3: {{url, projects: pod-*}}` or "
    "`containerlab: {{under: FOLDER, labs: pod-*}}` — found: {given}"
)
LABS_GNS3_NEEDS = "needs {what}"
LABS_PLACE_PATTERN = "{place!r} needs exactly one `*` (the part of the lab's name it stands for)"
LABS_PLACE_STAR = "{place!r}: a lab's own channels are named; `*` patterns belong to `pods:`"
LABS_MATRIX_ROOM = "{room!r} is not a Matrix room id (!…:server) or alias (#…:server)"
LABS_STUDENTS_POD = "{pod!r} does not match the group's pattern {pattern!r}"
LABS_PLACE_TAKEN = "{place} is already {other}'s: a channel or room answers for one lab"
LABS_NAME_TWICE = "LABBOT_LABS: {path!s}: two labs or groups are named {name!r}"
LABS_POD_TAKEN = "pod {name!r} of group {group!r} has the name of another lab: rename one"
LABS_POD_PLACE_TAKEN = "{place} answers for both {lab!r} and {other!r}: a place answers for one lab"
LABS_NO_LAB_NAMED = "no lab named {name!r} (the labs: {names})"
LABS_NO_LABS_FILE = (
    "--lab needs LABBOT_LABS, the labs file; without one there is a single lab, {lab}: "
    "leave --lab out"
)
LABS_NOT_HERE = (
    "this {kind} is no lab's: ask in a lab's channel, or add it to a lab in the labs file "
    "(LABBOT_LABS)"
)
LABS_NO_PODS_FOUND = "pod group {group!r}: no {where} matches {pattern!r}"
LABS_OK = "{path!s}: {count} lab(s): {names}"
LABS_FIX = "fix the line named, then `labbot check` again (docs/labs.md#many-labs)"
LABS_UNKNOWN_AGENT = (
    "{agent!r} is not an agent of LABBOT_MCP_AGENTS (its agents: {known}); name one of them, "
    "or add the agent there first"
)
LABS_AGENTS_PLACE = (
    "LABBOT_MCP_CHANNEL: {place} is no lab's place and no lab of LABBOT_LABS names `agents:`, "
    "so no agent could work in any lab: name a lab's channel there (that lab then takes every "
    "agent), or list each lab's agents in the labs file (docs/labs.md#many-labs)"
)
LABS_POD_GONE = (
    "{pod} is gone: its pod is no longer found (its GNS3 project or containerlab lab was "
    "removed), so it takes no new request; its open changes are still decided at their gates"
)
# said in a place no lab answers for: where the pods are and why they could not be read is
# only in the log (the place may be anyone's)
LABS_PODS_UNREAD = (
    "no lab answers here that labbot knows of, and the pods could not be looked up just now: "
    "if this is a new pod's place, ask again in a minute"
)
# `labbot rollback CHANGE [--lab NAME]` under a labs file
ROLLBACK_ON_LAB = "{change_id} was made on lab {lab}: the console opens on lab {lab}."
ROLLBACK_OTHER_LAB = (
    "{change_id} was made on lab {made_on}, not on {here}: its lines and backups are that lab's, "
    "whatever the devices are called here — leave --lab out, or give --lab {made_on}"
)
ROLLBACK_NO_LAB_RECORDED = (
    "{change_id} names no lab (recorded before LABBOT_LABS): give --lab NAME, the lab it was "
    "made on"
)
ROLLBACK_UNKNOWN = "no change {change_id} is on record (`labbot audit` lists the change ids)"

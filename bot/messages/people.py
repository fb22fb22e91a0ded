"""People: what waits for them (home, pending) and `labbot policy check`."""

from __future__ import annotations

HELP_PENDING = (  # the `pending` command's line in `help`
    "  pending                   the open steps you may decide, and your own open changes"
)
HOME_WAITING = "Waiting for you"
HOME_NOTHING_WAITING = "Nothing waits for your decision."
HOME_MINE = "Your open changes"
HOME_NOTHING_MINE = "You have no open change."
HOME_RECENT = "Recent changes"
HOME_NO_RECENT = "No change yet."
HOME_RECENT_LINE = "• {change_id} — {status} — {requester}: “{text}” — {at} — {link}"
PENDING_TO_DECIDE = "Waiting for you: {count} step(s) you may approve."
PENDING_REQUESTED = "Your open changes: {count}."
PENDING_LINE = (
    "• {change_id} — {gate} step — requested by {requester} — {devices} — waiting {age} — "
    "expires {expires} — {link}"
)
PENDING_EXPIRED = "now (expired; a decision ends it)"
PENDING_MORE = "… and {count} more."
NOTHING_PENDING = "Nothing is waiting for a decision in this thread."

# `labbot policy check USER DEVICE…` (bot/cli/policy_check.py): one line each.
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

# Why the approval policy refuses (bot/policy/rules.py), after "Refused: ".
NO_DIRECT_RULE = (
    "direct messages need an explicit rule (LABBOT_APPROVERS, or this conversation in "
    "LABBOT_APPROVERS_BY_CHANNEL)"
)
NO_APPROVERS_HERE = "no approvers are set for {channel} (LABBOT_APPROVERS_BY_CHANNEL)"
NOT_A_REQUESTER = (
    "you are not on the list of people who may request changes or read the lab (LABBOT_REQUESTERS)"
)
NOT_A_CURATOR = "only approvers may save or pin templates here (LABBOT_APPROVERS)"
FOUR_EYES = (
    "you requested this change; someone else must approve it "
    "(four-eyes; LABBOT_ALLOW_SELF_APPROVAL=true lets a solo lab opt out)"
)
NOT_AN_APPROVER = "you are not an approver in {channel} ({setting})"
LAB_APPROVERS = "the approvers of lab {lab} in LABBOT_LABS"
LAB_NO_APPROVERS = "LABBOT_APPROVERS: lab {lab} names no approvers of its own in LABBOT_LABS"
STUDENT_OF_OTHER_POD = (
    "you are a student of {pod}, not of {lab}: only {lab}'s students and the group's "
    "instructors decide here"
)
NO_OWNER = "{devices} has no owner in LABBOT_OWNERS; nobody may approve it"
NOT_AN_OWNER = "you own none of {devices} (LABBOT_OWNERS)"
DENY_POLICY = (
    "Deny-list policy for {platform}, by family (rule id, words, why; `allow:` names ids):"
)
DENY_UNKNOWN_PLATFORM = "no deny-list policy for {platform!r}; known: {known}"
DENY_SITE_RULES = "site rules (LABBOT_DENY_EXTRA, never allowed):"
DENY_NEVER_ALLOWED = " (never allowed)"
DENY_ROLLBACK_ONLY = " (never allowed, but a rollback restoring a line the device printed)"

# ids in the settings (bot/settings.py, bot/policy/approvers.py, the console's seats)
NOT_A_MATRIX_USER_ID = (
    "{token!r} is no Matrix user id: write @localpart:server (the localpart printable ASCII "
    "but ':', the server a host name), as the homeserver shows it"
)
NOT_A_MATRIX_ROOM = "{room!r} is no Matrix room: write its id (!…) or alias (#name:server)"
LOOK_ALIKE_IDS = (
    "{one!r} and {other!r} look alike (a person reads them as one name): name each person one way"
)
# `labbot pending` under a labs file (LABBOT_LABS): grouped by lab
PENDING_LAB = "lab {lab}:"
PENDING_NO_LAB = "nothing waits for {user} in any lab (LABBOT_LABS: {labs})"
# The App Home with many labs (bot/runtime/lab_homes.py): sections per lab
HOME_LAB_WAITING = "{lab}: waiting for you"
HOME_LAB_MINE = "{lab}: your open changes"
HOME_NO_LAB = "Your labs"
HOME_NO_LAB_EMPTY = "Nothing waits for you in any lab, and you are among no lab's people."

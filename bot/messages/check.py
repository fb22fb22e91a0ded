"""The command line's own lines: `labbot check` (the doctor: one line per item and its fix),
`labbot serve`'s checks before it listens, files it cannot write."""

from __future__ import annotations

# files the command line writes (bot/cli/writable_paths.py)
CANNOT_WRITE = "{option}: cannot write {path}: {why}"
IS_A_FOLDER = "it is a folder; name a file"
NO_SUCH_FOLDER = "no such folder {folder}; create it or choose another path"
NOT_WRITABLE = "permission denied; choose a path you may write"
FILE_FAILED = "cannot use {path}: {why}"

# `labbot check`: one line per item (bot/check/findings.py)
CHECK_MARKS = {"ok": "✓", "fail": "✗", "warn": "!", "off": "–"}
CHECK_LINE = "{mark} {area}: {said}{fix}"
CHECK_FIX = " — {fix}"
CHECK_SUMMARY = "{failed} item(s) broken, {warned} warning(s), {fine} fine"
# settings
SETTINGS_READ = "read{sources}"
SETTINGS_SOURCES = " from {sources}"
SETTINGS_BROKEN = "{line}"
SETTINGS_BROKEN_FIX = "fix that setting; the rest is checked once settings load"
UNKNOWN_SETTING = "{name} is not a labbot setting, so it does nothing"
UNKNOWN_SETTING_FIX = "did you mean {guess}?"
UNKNOWN_SETTING_NO_GUESS = "remove it or fix its name (see deploy/.env.example)"
# database and data
DATA_DIR = "{path} (database, audit key and head, Matrix store)"
DATA_DIR_UNWRITABLE = "{path} cannot be written"
DATA_DIR_FIX = "make it writable or set LABBOT_DATA_DIR to a folder labbot may write"
DATABASE_NEW = "{where} does not exist yet: labbot creates it when it first starts"
DATABASE_AT_HEAD = "{where} answers, schema at the newest revision {revision}"
DATABASE_BEHIND_EMBEDDED = (
    "{where} is at revision {revision}: it upgrades itself to {head} when labbot starts"
)
DATABASE_BEHIND = "{where} is at revision {revision}, labbot needs {head}"
DATABASE_BEHIND_FIX = "run `labbot db upgrade`"
DATABASE_FIX = "start the database or fix LABBOT_DATABASE_URL"
AUDIT_KEY_SETTING = "key from LABBOT_AUDIT_KEY"
AUDIT_KEY_FILE = "key in {path}"
AUDIT_KEY_LATER = "no key yet: made in {path} when labbot first writes the audit"
STORAGE_KEY_SETTING = "keys from LABBOT_STORAGE_KEY"
STORAGE_KEY_LATER = "no key yet: made in {path} when labbot first starts"
AUDIT_HEAD_INTACT = "chain intact: {rows} row(s), matching the head in {file}"
AUDIT_HEAD_EMPTY = "no audit rows yet"
AUDIT_HEAD_MISSING = "{rows} audit row(s) and no anchored head in {file}"
AUDIT_HEAD_ANCHOR_FIX = "run `labbot audit anchor` to anchor this database"
AUDIT_HEAD_BROKEN = "chain broken at {at}"
AUDIT_HEAD_BROKEN_FIX = "`labbot audit verify` names the row; restore the database from a backup"
# chat
SLACK_OFF = "not configured (SLACK_BOT_TOKEN)"
SLACK_OK = "auth.test: bot {user} in {team} ({url})"
SLACK_REFUSED = "{url} refused SLACK_BOT_TOKEN ({error})"
SLACK_REFUSED_FIX = "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page"
SLACK_UNREACHABLE = "cannot reach {url} ({error})"
SLACK_UNREACHABLE_FIX = "check SLACK_API_URL and the network"
SLACK_NO_MODE = "neither SLACK_APP_TOKEN (Socket Mode) nor SLACK_SIGNING_SECRET (--http) is set"
SLACK_NO_MODE_FIX = "set SLACK_APP_TOKEN (xapp-…, scope connections:write) for Socket Mode"
MATRIX_OFF = "not configured (MATRIX_HOMESERVER)"
MATRIX_OK = "whoami: {user} (device {device}) on {homeserver}"
MATRIX_REFUSED = "{homeserver} refused the access token ({error})"
MATRIX_REFUSED_FIX = "set a valid MATRIX_ACCESS_TOKEN, or MATRIX_PASSWORD to log in afresh"
MATRIX_UNREACHABLE = "cannot reach {homeserver} ({error})"
MATRIX_UNREACHABLE_FIX = "check MATRIX_HOMESERVER and the network"
MATRIX_PASSWORD_ONLY = "MATRIX_PASSWORD set, no session yet: labbot logs in when it first starts"
MATRIX_NO_E2EE = "no end-to-end encryption in this build: encrypted rooms are not read"
MATRIX_STORE = "E2EE store {path}: {state}"
MATRIX_STORE_KEYS = "key store of device {device} present"
MATRIX_STORE_NEW = "no key store yet (made at the first login)"
MATRIX_STORE_LOST = "the key store of device {device} is gone"
MATRIX_STORE_LOST_FIX = (
    "restore LABBOT_DATA_DIR/matrix from a backup; with MATRIX_PASSWORD labbot becomes a new "
    "device and cannot read older encrypted messages"
)
# the LLM
LLM_OFF = "not configured (OPENAI_API_KEY): the built-in template library plans"
LLM_OK = "{model} at {endpoint} answers ({strategy}, {seconds:.1f} s)"
LLM_FIX = "see `labbot llm check`"
# the inventory and owners
INVENTORY_OFF = "not configured: set LABBOT_INVENTORY (a Nornir hosts.yaml) or GNS3_URL"
INVENTORY_OK = "{source}: {count} device(s): {names}"
LINKS_OK = "{count} link(s) between the devices: {links}"
INVENTORY_FIX = "fix the file, then run `labbot check` again"
INVENTORY_UNUSABLE_FIX = "the device cannot be used until then"
DEVICE_NO_LOGIN = "{where}: host {name} has no login (username and password)"
DEVICE_NO_LOGIN_FIX = (
    "set username/password on the host (or its group, or defaults.yaml), or "
    "LABBOT_DEVICE_USERNAME and LABBOT_DEVICE_PASSWORD"
)
OWNERS_OK = "{path}: {count} rule(s), each naming devices of the inventory"
OWNERS_NO_DEVICE = "{path}: rule {glob} names no device of the inventory"
OWNERS_NO_DEVICE_FIX = "fix the glob (device names: {names})"
# each device
DEVICE_OK = "{where} answers; logged in, privileged, running config read ({size} characters)"
DEVICE_DOWN = "{where}: {why}"
DEVICE_DOWN_FIX = "start the device, or fix its hostname and port in the inventory"
# the fix by the failure's class (workflow/devices/failure.py), and where the platform's CLI
# asks for another, by its dialect (workflow/devices/cli_errors.py); {platform}: the inventory's
DEVICE_FIXES = {
    "refused": DEVICE_DOWN_FIX,
    "unreachable": DEVICE_DOWN_FIX,
    "no_login": DEVICE_NO_LOGIN_FIX,
    "timeout": "is the device running, and its console free (one session at a time)?",
    "dropped": "is the console taken by another session?",
    "setup": "the login worked: is {platform} (the inventory's platform) what the device runs, "
    "and does the login land in its CLI?",
    "not_privileged": "set it in LABBOT_DEVICE_SECRET, or the host's "
    "connection_options.netmiko.extras.secret",
    "cli_refused": "is {platform} (the inventory's platform) what the device runs, and may "
    "the login read its configuration (privilege 15, or `enable` with LABBOT_DEVICE_SECRET)?",
}
DEVICE_FIXES_BY_DIALECT = {
    ("setup", "junos"): "the login worked: is {platform} what the device runs, and does the "
    "login land in the Junos CLI (`user@host>`; a login class whose shell is sh needs "
    "`cli`)?",
    ("setup", "vrp"): "the login worked: is {platform} what the device runs (VRP `<name>`, "
    "Comware hp_comware), and may the user run `screen-length 0 temporary`?",
    ("not_privileged", "frr"): "vtysh asks for `enable` here: set its enable password in "
    "LABBOT_DEVICE_SECRET (or the host's connection_options.netmiko.extras.secret)",
    ("cli_refused", "junos"): "is {platform} what the device runs, and does the login's class "
    "allow `show configuration` (the view-configuration permission)?",
    ("cli_refused", "vrp"): "is {platform} what the device runs, and is the user's level high "
    "enough to read the configuration (level 3 on VRP, network-operator on Comware)?",
    ("cli_refused", "frr"): "is {platform} what the device runs, and does the login land in "
    "vtysh (not a shell)?",
    ("cli_refused", "linux"): "a Linux shell has no network CLI: set the host's platform to "
    "the device's (frr for vtysh), or make the login start vtysh",
}
DEVICE_FIX_OTHER = "check the device's platform in the inventory"
# `labbot serve` before it listens
SERVE_REFUSED = "not serving: {line}"
SERVE_CHECKED = "check: {line}"

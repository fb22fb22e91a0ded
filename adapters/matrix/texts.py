"""What the Matrix adapter itself says in rooms and logs (the bot's other texts are in bot/)."""

from __future__ import annotations

E2EE_UNSUPPORTED = (
    "This room is end-to-end encrypted, and this labbot runs without Matrix encryption support: "
    "I cannot read encrypted messages here. Use an unencrypted room for labbot, or ask the "
    "operator to install labbot with its e2e extra (`labbot[e2e]`)."
)
E2EE_LOG = (
    "room %s is end-to-end encrypted and matrix-nio's encryption support is not installed: "
    "install labbot[e2e] (pip install 'labbot[e2e]'), or invite the bot to an unencrypted room"
)
REPLY_TO_GATE = (
    "Which step do you decide? Reply to the step's message (or react to it) so labbot knows "
    "what you saw."
)
ASK_FEEDBACK = "What should change? Reply in this thread with `modify: <what to change>`."
NO_AUTHORITY = (
    "power levels in %s count for nothing: it is neither LABBOT_MATRIX_AUTHORITY_ROOM nor one of "
    "LABBOT_MATRIX_ROOMS"
)
ROOM_NOT_ALLOWED = "declining the invite to %s: not in LABBOT_MATRIX_ROOMS"
UNDECRYPTABLE = (
    "I could not decrypt a message {sender} sent here (their device did not share its key with "
    "me). I asked for the key; if nothing happens, send it again."
)
UNENCRYPTED_DECISION = (
    "this decision was not encrypted, so labbot cannot tell which device sent it and this room "
    "accepts decisions only from verified devices (LABBOT_MATRIX_TRUST=verified): reply "
    "`approve`, `execute` or `cancel` in the thread from a verified device"
)
UNKNOWN_DEVICE = (
    "it came from a device labbot does not know ({device}); ask the operator to check "
    "`labbot matrix devices`"
)
UNVERIFIED_DEVICE = (
    "it came from your device {device}, which is not verified (LABBOT_MATRIX_TRUST=verified); "
    "ask the operator to run `labbot matrix verify {user} {device} <its session key>`"
)
BLOCKED_DEVICE = "it came from your device {device}, which labbot was told not to trust"
NEW_DEVICE = (
    "Heads up: {user} has a new device {device} ({name}); labbot trusts it from now on "
    "(LABBOT_MATRIX_TRUST=tofu). If that is not {user}, tell the operator."
)
DEVICE_GONE = "Heads up: {user} no longer has the device {device} ({name})."
STORE_LOST_LOG = (
    "the Matrix key store of device %s is gone from %s: labbot cannot read what was encrypted "
    "for that device. With MATRIX_PASSWORD it logs in as a new device; with only "
    "MATRIX_ACCESS_TOKEN create a new token. Keep LABBOT_DATA_DIR on persistent storage"
)

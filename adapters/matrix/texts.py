"""What the Matrix adapter itself says in rooms and logs (the bot's other texts are in bot/)."""

from __future__ import annotations

E2EE_UNSUPPORTED = (
    "This room is end-to-end encrypted, and this labbot runs without Matrix encryption support: "
    "I cannot read encrypted messages here. Use an unencrypted room for labbot (or ask the "
    "operator for one)."
)
E2EE_LOG = (
    "room %s is end-to-end encrypted; labbot's Matrix adapter has no E2EE support and cannot "
    "read it: invite the bot to an unencrypted room instead"
)
ASK_FEEDBACK = "What should change? Reply in this thread with `modify: <what to change>`."
NOTHING_PENDING = "Nothing is waiting for a decision in this thread."
ROOM_NOT_ALLOWED = "declining the invite to %s: not in LABBOT_MATRIX_ROOMS"

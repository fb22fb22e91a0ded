"""Every text the Slack adapter itself shows people (the bot's own texts are in bot/messages)."""

from __future__ import annotations

SLASH_OPENED = "<@{user}> asked via `/labbot`: {text}"
NOT_IN_CHANNEL = (
    "I cannot post in this channel yet: invite me with `/invite @labbot`, then try again."
)
MODAL_TITLE = "Modify the proposal"
MODAL_LABEL = "What should change?"
MODAL_HINT = "Your words go to the planner, which proposes again in the thread."
MODAL_PLACEHOLDER = "e.g. use area 1 on R2 and keep the router id"
MODAL_SUBMIT = "Send"
MODAL_CANCEL = "Back"
CONFIRM_TITLE = "Are you sure?"
CONFIRM_DENY = "Not yet"
OVERFLOW_UPLOADED = "{count} more section(s) did not fit in one message: attached as files below."
OVERFLOW_EARLIER = "{count} more section(s) are attached as files in this thread."
ATTACHED = "Full output attached as file(s) in this thread: {titles}."
BUSY = (
    "labbot is busy with many requests right now: nothing was done, please try again in a minute."
)
BAD_BUTTON = "This button does not belong to labbot (or was altered); nothing was decided."
LEVEL_PREFIX = {"error": ":x: ", "warning": ":warning: ", "success": "", "info": ""}

"""A link people can open to a thread: Slack permalink form, Matrix matrix.to event link."""

from __future__ import annotations

from urllib.parse import quote

from adapters.chat import ThreadRef

__all__ = ["thread_link", "thread_of"]


def slack_permalink(channel: str, ts: str) -> str:
    """Slack's permalink form: `p` + the message ts without its dot (slack.com redirects to the
    workspace of whoever opens it)."""
    return f"https://slack.com/archives/{quote(channel, safe='')}/p{ts.replace('.', '')}"


def matrix_event_link(room_id: str, event_id: str) -> str:
    return f"https://matrix.to/#/{quote(room_id, safe='')}/{quote(event_id, safe='')}"


def thread_link(thread: ThreadRef) -> str:
    """The thread's root message as a link; the console has none, so its key."""
    if thread.platform == "slack":
        return slack_permalink(thread.channel, thread.thread)
    if thread.platform == "matrix":
        return matrix_event_link(thread.channel, thread.thread)
    return thread.key


def thread_of(platform: str, channel: str, thread_key: str) -> ThreadRef:
    """The ThreadRef whose key is `thread_key` (channel ids may hold colons, so not a split)."""
    prefix = f"{platform}:{channel}:"
    if not thread_key.startswith(prefix):
        raise ValueError(f"thread key {thread_key!r} is not in {platform}:{channel}")
    return ThreadRef(platform, channel, thread_key[len(prefix) :])

"""Which step of netmiko's session set-up failed, and what the device last said: a device that
logged in but never answered `terminal width 511` (or whose prompt netmiko could not find) is
not a device that is down, and is said so with the step and the device's last words."""

from __future__ import annotations

HEARD_CHARS = 300  # of what the device said during set-up, the end is kept
SAID_CHARS = 120  # the last words quoted


class SessionSetupFailed(Exception):
    """Logged in, then the set-up failed at `step` (the line sent; "" while finding the prompt)
    after the device last said `said` ("" when it said nothing)."""

    def __init__(self, step: str, said: str, cause: BaseException) -> None:
        self.step, self.said, self.error_type = step, said, type(cause).__name__
        lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
        super().__init__(lines[0] if lines else self.error_type)


class NamedSetup:
    """A netmiko connection class mixin: a failure of `session_preparation` (paging, width,
    prompt) raises SessionSetupFailed naming the last line sent and the last line heard."""

    _setup_sent: str | None = None  # the last line sent while setting up; None: not setting up
    _setup_failed_at: str | None = None  # the step it failed at, kept from netmiko's `exit`
    _setup_heard = ""

    def write_channel(self, out_data: str) -> None:
        if self._setup_sent is not None and out_data.strip():
            self._setup_sent = out_data.strip()
        super().write_channel(out_data)  # type: ignore[misc]

    def read_channel(self) -> str:
        data: str = super().read_channel()  # type: ignore[misc]
        if self._setup_sent is not None and data:
            self._setup_heard = (self._setup_heard + data)[-HEARD_CHARS:]
        return data

    def disconnect(self) -> None:
        """netmiko disconnects (sending `exit`) before it re-raises a failed set-up: the step
        that failed is the line sent before that."""
        if self._setup_sent is not None:
            self._setup_failed_at, self._setup_sent = self._setup_sent, None
        super().disconnect()  # type: ignore[misc]

    def _try_session_preparation(self, force_data: bool = True) -> None:
        self._setup_sent, self._setup_heard, self._setup_failed_at = "", "", None
        try:
            super()._try_session_preparation(force_data)  # type: ignore[misc]
        except Exception as exc:
            said = last_words(self._setup_heard)
            step = self._setup_failed_at if self._setup_failed_at is not None else self._setup_sent
            raise SessionSetupFailed(step or "", said, exc) from exc
        finally:
            self._setup_sent = None


def last_words(heard: str) -> str:
    """The last line the device said (its end, when long), without terminal codes."""
    lines = [line.strip() for line in heard.replace("\r", "\n").splitlines() if line.strip()]
    said = "".join(ch for ch in lines[-1] if ch.isprintable()) if lines else ""
    return said[-SAID_CHARS:]

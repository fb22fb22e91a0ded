"""`--lab NAME` of `labbot audit`, `check` and `console`: one lab of the labs file
(LABBOT_LABS). Without a labs file there is a single lab, and `--lab` is refused in one line
naming it (loads no workflow: `labbot audit` reads storage only)."""

from __future__ import annotations

from base.errors import ConfigError
from bot import messages
from bot.settings import Settings

__all__ = ["lab_shown", "refuse_lab_without_labs"]


def lab_shown(settings: Settings) -> str:
    """The settings' one lab, as a person knows it (its GNS3 project, or its inventory file)."""
    if settings.gns3_url:
        return messages.CONSOLE_LAB_GNS3.format(
            project=settings.gns3_project, url=settings.gns3_url
        )
    return messages.CONSOLE_LAB_FILE.format(path=settings.inventory)


def refuse_lab_without_labs(settings: Settings, lab: str | None) -> None:
    """`--lab` needs a labs file: without one, one line naming the single lab there is."""
    if lab is not None and settings.labs is None:
        raise ConfigError(messages.LABS_NO_LABS_FILE.format(lab=lab_shown(settings)))

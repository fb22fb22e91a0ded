"""The approval policy the settings configure: the approver lists and the owners file.

Apart from bot.wiring so that `labbot policy check` reads it without the rest of the bot.
"""

from __future__ import annotations

from pathlib import Path

from base.errors import ConfigError
from bot.policy_rules import OwnerRule, OwnersError, Policy, parse_owners
from bot.settings import Settings


def policy_from(settings: Settings) -> Policy:
    return Policy(
        approvers=tuple(settings.approvers),
        approvers_by_channel=settings.approvers_by_channel,
        owners=read_owners(settings.owners) if settings.owners else (),
        requesters=tuple(settings.requesters),
        allow_self_approval=settings.allow_self_approval,
        template_approvals=settings.template_approvals,
        push_approvals=settings.push_approvals,
    )


def read_owners(path: Path) -> tuple[OwnerRule, ...]:
    """The owners file; a missing or malformed one is one line naming LABBOT_OWNERS."""
    try:
        return parse_owners(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"LABBOT_OWNERS: cannot read {str(path)!r}: {exc.strerror}") from None
    except OwnersError as exc:
        raise ConfigError(f"LABBOT_OWNERS: {path}: {exc}") from None

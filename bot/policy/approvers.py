"""The approval policy the settings configure: the approver lists and the owners file.

Apart from bot.runtime.wiring so that `labbot policy check` reads it without the rest of the bot.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from adapters.user_ids import look_alikes
from base.errors import ConfigError
from bot import messages
from bot.policy.rules import POWER, OwnerRule, OwnersError, Policy, is_group, parse_owners
from bot.settings import Settings

__all__ = ["policy_from", "read_owners", "refuse_look_alikes"]


def policy_from(settings: Settings) -> Policy:
    """The policy; two people it names that a person would read as one are refused."""
    policy = Policy(
        approvers=tuple(settings.approvers),
        approvers_by_channel=settings.approvers_by_channel,
        owners=read_owners(settings.owners) if settings.owners else (),
        requesters=tuple(settings.requesters),
        allow_self_approval=settings.allow_self_approval,
        template_approvals=settings.template_approvals,
        push_approvals=settings.push_approvals,
    )
    refuse_look_alikes("LABBOT_APPROVERS, LABBOT_REQUESTERS, LABBOT_OWNERS", policy.who_tokens())
    return policy


def refuse_look_alikes(settings: str, names: Iterable[str]) -> None:
    """One line naming two of `names` that look alike but are not one name (`@BOB:hs` and
    `@bob:hs`, `rооt` with a Cyrillic о and `root`): such a pair would count as two people."""
    people = [n for n in names if not POWER.match(n) and not is_group(n)]
    pair = look_alikes(people)
    if pair is not None:
        said = messages.LOOK_ALIKE_IDS.format(one=pair[0], other=pair[1])
        raise ConfigError(f"{settings}: {said}")


def read_owners(path: Path) -> tuple[OwnerRule, ...]:
    """The owners file; a missing or malformed one is one line naming LABBOT_OWNERS."""
    try:
        return parse_owners(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"LABBOT_OWNERS: cannot read {str(path)!r}: {exc.strerror}") from None
    except OwnersError as exc:
        raise ConfigError(f"LABBOT_OWNERS: {path}: {exc}") from None

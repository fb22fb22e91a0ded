"""Why a change's devices were chosen, as typed values the bot words (bot/views/targets.py).

JSON-shaped (checkpoints and gate payloads hold them): `Chosen` says which word of the request
chose a device; a kind word's choice also says where the device's kind comes from. A checkpoint
from before these types holds the reason as text (`Because` admits it, and the bot shows it).
"""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

__all__ = ["Because", "Chosen", "ChosenKind", "KindSource", "chosen", "is_named"]

# named: the request names it; glob: it matches `word`; every: `word` ("all") took every device;
# kind: it is of kind `word`; changed_by: change `word` changed it (a rollback); planner: the
# planner named it although the request did not.
ChosenKind = Literal["named", "glob", "every", "kind", "changed_by", "planner"]
CHOSEN_KINDS: tuple[ChosenKind, ...] = get_args(ChosenKind)

# Where a device's kind comes from: the inventory's `kind:`/`role:`, an inventory group
# (`detail`), the GNS3 node type or symbol (`detail`), what its vendor family (`detail`) usually
# is, or nowhere.
KindSource = Literal["inventory", "group", "symbol", "family", "unknown"]
KIND_SOURCES: tuple[KindSource, ...] = get_args(KindSource)


class Chosen(TypedDict):
    kind: ChosenKind
    word: str  # the glob, the "every" word, the kind or the change id ("" named, planner)
    source: KindSource  # kind: where the device's kind comes from ("unknown" otherwise)
    detail: str  # the group, symbol or family the source names ("" when none)


Because = Chosen | str  # str: a checkpoint from before typed reasons, said as it is


def chosen(kind: ChosenKind, word: str = "") -> Chosen:
    return Chosen(kind=kind, word=word, source="unknown", detail="")


def is_named(because: Because | None) -> bool:
    """Whether the request named the device itself (not a glob, a kind or every device)."""
    return because == "named" or (isinstance(because, dict) and because["kind"] == "named")

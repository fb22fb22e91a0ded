"""What a configuration line does on each platform: the modes of its CLI and where a typed line
lands among them (closed world). One grammar serves labsim's twin, the sections check, the
deny-list's idea of a line's mode and the preview's "where each line lands".

Modelled here: Cisco IOS / IOS-XE (`ios`), Arista EOS (`eos`), Huawei VRP views (`vrp`). FRR is
judged on a real FRR router (frrlab's twin); Junos `set` lines carry their own path; any other
platform has no model, and a line under a sub-mode header cannot be placed there.
"""

from __future__ import annotations

from base.grammar import eos, ios, vrp
from base.grammar.model import GLOBAL, GLOBAL_PLACE, Grammar, Mode, Placed

__all__ = ["GLOBAL", "GLOBAL_PLACE", "Grammar", "Mode", "Placed", "grammar_for", "model_of"]

_GRAMMARS: dict[str, Grammar] = {
    "cisco_ios": ios.GRAMMAR,
    "cisco_xe": ios.GRAMMAR,
    "arista_eos": eos.GRAMMAR,
    "huawei_vrp": vrp.GRAMMAR,
    "huawei": vrp.GRAMMAR,
}
# What judges where a line lands on platforms without a grammar here.
_OTHER_MODELS = {
    "frr": "a real FRR router (the twin): every line, abbreviations included, is typed into it",
    "juniper_junos": "Junos `set` lines: each names its own path",
    "juniper": "Junos `set` lines: each names its own path",
}
NO_MODEL = "no model: lines under a sub-mode header cannot be placed, and are refused"


def grammar_for(family: str) -> Grammar | None:
    """The mode grammar of a platform family (`cisco_ios`, …), or None where there is none."""
    return _GRAMMARS.get(family)


def model_of(family: str) -> str:
    """What judges where `family`'s lines land, in words for the gate."""
    grammar = _GRAMMARS.get(family)
    if grammar is not None:
        return f"labbot's {grammar.name} mode grammar (closed world)"
    return _OTHER_MODELS.get(family, NO_MODEL)

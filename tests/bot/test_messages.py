"""bot/messages reads its area modules into one namespace (`messages.NAME`): a name defined in two
areas would silently show one area's sentence in the other's place."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

import bot.messages


def test_no_sentence_name_is_defined_in_two_areas() -> None:
    areas: defaultdict[str, list[str]] = defaultdict(list)
    for module in pkgutil.iter_modules(bot.messages.__path__):
        names = vars(importlib.import_module(f"bot.messages.{module.name}"))
        for name in names:
            if name.isupper():
                areas[name].append(module.name)
    assert len(areas) > 100  # every area was read
    assert {name: found for name, found in areas.items() if len(found) > 1} == {}


def test_every_area_is_read_into_messages() -> None:
    for module in pkgutil.iter_modules(bot.messages.__path__):
        names = vars(importlib.import_module(f"bot.messages.{module.name}"))
        missing = [n for n in names if n.isupper() and not hasattr(bot.messages, n)]
        assert missing == [], module.name

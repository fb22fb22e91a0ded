"""A template as people read it: a parameter's default that is a secret shows as its token."""

from __future__ import annotations

from bot.views.template import schema_text
from tests.support.masks import MASK
from workflow.model import ParamSpec


def test_a_secret_default_is_shown_masked_and_the_others_as_they_are() -> None:
    schema: dict[str, ParamSpec] = {
        "community": {"type": "str", "default": "Typed-C-1"},
        "area": {"type": "int", "default": 0},
        "lines": {"type": "str", "default": "ntp authentication-key 1 md5 Ntp-K 7"},
    }
    shown = schema_text(schema, MASK)
    assert "Typed-C-1" not in shown and "Ntp-K" not in shown
    assert f'community: str = "{MASK.token("Typed-C-1")}"' in shown
    assert "area: int = 0" in shown
    assert f"md5 {MASK.token('Ntp-K')} 7" in shown

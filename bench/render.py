"""Render 1,000 device previews: OSPF template + validate_params + DenyList.check + the sections
check where each line lands (the closed-world mode grammar, base.grammar) per device.

Goal: <= 1 s. Side by side in the same run, the same previews with no mode grammar (lines judged
as written only), so the grammar's cost reads as a ratio on a noisy machine.

    .venv/bin/python -m bench.render
"""

from __future__ import annotations

import time
from collections.abc import Callable
from unittest import mock

from base.grammar import Grammar
from workflow.library.catalog import load_catalog
from workflow.safety.deny import DenyList
from workflow.safety.sections import misplaced_lines
from workflow.templates.rendering import render
from workflow.templates.validation import validate_params

DEVICES = 1_000


def device_params(index: int) -> dict[str, object]:
    """Each device: a loopback and three point-to-point links, as the OSPF deriver produces."""
    return {
        "process_id": 1,
        "area": "0",
        "router_id": f"10.255.{index // 256}.{index % 256}",
        "networks": [f"10.{index % 250}.{link}.0/30" for link in range(3)]
        + [f"10.255.{index // 256}.{index % 256}/32"],
    }


def previews() -> tuple[float, int]:
    """Seconds for DEVICES previews, and the lines rendered."""
    template = load_catalog().get("ospf")
    source, schema = template.templates["cisco_ios"], template.params_schema
    deny = DenyList()
    render(source, validate_params(schema, device_params(0))[0])  # compile once, as a run would
    started = time.perf_counter()
    lines = 0
    for index in range(DEVICES):
        params, errors = validate_params(schema, device_params(index))
        assert not errors, errors
        rendered = render(source, params)
        assert not deny.check(rendered, "cisco_ios")
        assert not misplaced_lines(rendered, template.sections, "cisco_ios")
        lines += len(rendered)
    return time.perf_counter() - started, lines


def main() -> None:
    no_grammar: Callable[[str], Grammar | None] = lambda family: None  # noqa: E731
    for _ in range(3):  # alternated, so load on the machine falls on both alike
        with_grammar, lines = previews()
        with (
            mock.patch("workflow.safety.deny.grammar_for", no_grammar),
            mock.patch("workflow.safety.sections.landing_problems", lambda *_: []),
        ):
            without, _ = previews()
        print(
            f"{DEVICES} device previews ({lines} lines) in {with_grammar:.3f} s (goal <= 1 s); "
            f"as written only {without:.3f} s: the mode grammar costs x{with_grammar / without:.2f}"
        )


if __name__ == "__main__":
    main()

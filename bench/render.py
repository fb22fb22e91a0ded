"""Render 1,000 device previews: OSPF template + validate_params + DenyList.check per device.

Goal: <= 1 s.

    .venv/bin/python -m bench.render
"""

from __future__ import annotations

import time

from workflow.library.catalog import load_catalog
from workflow.rendering import render
from workflow.safety import DenyList
from workflow.validation import validate_params

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


def main() -> None:
    template = load_catalog().get("ospf")
    source, schema = template.templates["cisco_ios"], template.params_schema
    deny = DenyList()
    render(
        source, validate_params(schema, device_params(0))[0]
    )  # compile once, as a real run would
    started = time.perf_counter()
    lines = 0
    for index in range(DEVICES):
        params, errors = validate_params(schema, device_params(index))
        assert not errors, errors
        rendered = render(source, params)
        assert not deny.check(rendered, "cisco_ios")
        lines += len(rendered)
    elapsed = time.perf_counter() - started
    print(f"{DEVICES} device previews ({lines} lines) in {elapsed:.3f} s (goal <= 1 s)")


if __name__ == "__main__":
    main()

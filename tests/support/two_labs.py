"""Two simulated labs with the same router names, for the many-labs tests: lab red (R1-R3) and
lab blue (R1, R2), each its own devices, their inventories under DIR/red/ and DIR/blue/."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology

# the labs' device login as labbot's settings name it (`load_settings(**DEVICE_LOGIN)`)
DEVICE_LOGIN = {f"device_{k}": DEMO_CREDENTIALS[k] for k in ("username", "password", "secret")}


@asynccontextmanager
async def two_labs(directory: Path) -> AsyncIterator[dict[str, Lab]]:
    login = {k: DEMO_CREDENTIALS[k] for k in ("username", "password", "secret")}
    async with (
        Lab.start(demo_topology(3, switch=False), **login) as red,
        Lab.start(demo_topology(2, switch=False), **login) as blue,
    ):
        for name, lab in (("red", red), ("blue", blue)):
            (directory / name).mkdir()
            lab.write_inventory(directory / name / "hosts.yaml", transport="telnet")
        yield {"red": red, "blue": blue}

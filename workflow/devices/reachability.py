"""Whether each device answers where the inventory says it is: a TCP connect to its address or
console, all devices in parallel but at most CONCURRENCY at once, each cut after `seconds`
seconds. Nothing is sent: the connection is closed as soon as it is open."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence

from workflow.model import Device

__all__ = ["probe"]

PROBE_SECONDS = 2.0
CONCURRENCY = 32


async def probe(
    devices: Sequence[Device], seconds: float = PROBE_SECONDS, concurrency: int = CONCURRENCY
) -> dict[str, str | None]:
    """Device name -> None when its address accepts a connection, else why it does not."""
    slots = asyncio.Semaphore(concurrency)

    async def one(device: Device) -> tuple[str, str | None]:
        async with slots:
            return device.name, await _connect(device.host, device.port, seconds)

    return dict(await asyncio.gather(*(one(device) for device in devices)))


async def _connect(host: str, port: int, seconds: float) -> str | None:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), seconds)
    except TimeoutError:
        return f"no answer within {seconds:g} s"
    except OSError as exc:  # asyncio words a refusal "Connect call failed (…)": the errno's name
        return (os.strerror(exc.errno) if exc.errno else str(exc) or type(exc).__name__).lower()
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return None

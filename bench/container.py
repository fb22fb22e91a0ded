"""labbot's image: its size and its time to ready, beside the same `labbot serve --http` started as
a plain process on the host (goals: image ≤ 250 MB, ready ≤ 3 s).

Ready = from `docker run` (or the process start) until `GET /healthz` answers 200: creating the
container, Python importing labbot, the settings, the Slack token check (auth.test on the Slack
stand-in), the embedded SQLite database created and migrated, the HTTP listener. The container
runs as deployed: read-only root filesystem, /data a fresh volume, /tmp a tmpfs. Median of
`--runs` starts of each, taken in turns. The image is built as the container tests build it
(the Debian base of .ci/docker-images.sh).

    .venv/bin/python -m bench.container [--runs 5] [--against IMAGE]   (the engine: .ci/docker.sh)

--against IMAGE measures an earlier build (an image id or tag) in the same run, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp

from tests.deploy.containers import labbot_env
from tests.deploy.engine import (
    PREFIX,
    Images,
    bridge_gateway,
    build_images,
    docker,
    engine_problem,
)
from tests.fakes.slack_api import SlackApiStandIn

MB = 10**6
GOAL_MB, GOAL_SECONDS = 250, 3.0
LABBOT = Path(sys.executable).with_name("labbot")
INVENTORY = "R1:\n  hostname: 192.0.2.1\n  platform: cisco_ios\n"  # never contacted at start


def image_sizes(images: Images) -> tuple[int, int, int]:
    """(image, its base, the image saved and gzip-compressed as a registry would store it)."""

    def size(image: str) -> int:
        return int(docker("image", "inspect", "--format", "{{.Size}}", image).stdout)

    saved = subprocess.run(
        f"docker save {images.labbot} | gzip -1 | wc -c",
        shell=True,
        capture_output=True,
        text=True,
        check=True,
    )
    return size(images.labbot), size(images.base), int(saved.stdout)


async def healthy(url: str, within: float = 60) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(url + "/healthz") as answer:
                    if answer.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.02)
    raise TimeoutError(f"{url}/healthz did not answer 200 within {within} s")


async def in_container(images: Images, env: dict[str, str], inventory: Path) -> float:
    settings = [f"--env={k}={v}" for k, v in env.items()]
    started = time.monotonic()
    container = await run(
        "docker", "run", "--detach", "--read-only", "--tmpfs=/tmp", "--volume=/data",
        f"--volume={inventory}:/config/hosts.yaml:ro", "--publish=127.0.0.1::3000",
        "--name", f"{PREFIX}-bench-{os.getpid()}", *settings, images.labbot,
    )  # fmt: skip
    try:
        port = (await run("docker", "port", container, "3000")).rpartition(":")[2]
        await healthy(f"http://127.0.0.1:{port}")
        return time.monotonic() - started
    except TimeoutError:
        print(docker("logs", container).stderr, file=sys.stderr)
        raise
    finally:
        await run("docker", "rm", "--force", "--volumes", container)


async def on_host(env: dict[str, str], inventory: Path, workdir: Path) -> float:
    port = free_port()
    host_env = {"PATH": os.environ["PATH"], **env, "LABBOT_INVENTORY": str(inventory)}
    host_env |= {"LABBOT_DATA_DIR": str(workdir), "LABBOT_DATABASE_URL": sqlite_url(workdir)}
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        str(LABBOT), "serve", "--http", "--host", "127.0.0.1", "--port", str(port),
        env=host_env, cwd=workdir, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await healthy(f"http://127.0.0.1:{port}")
        return time.monotonic() - started
    finally:
        process.terminate()
        await process.wait()


def sqlite_url(workdir: Path) -> str:
    (workdir / "labbot.db").unlink(missing_ok=True)  # each start creates and migrates it
    return f"sqlite+aiosqlite:///{workdir}/labbot.db"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def run(*argv: str) -> str:
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if process.returncode:
        raise RuntimeError(f"{' '.join(argv[:3])}…: {err.decode().strip()}")
    return out.decode().strip()


async def ready_times(images: Images, runs: int, against: Images | None) -> list[float]:
    """Medians: this image in a container, the host process, then the earlier image if any —
    taken in turns, so a change of the machine's load falls on all of them alike."""
    async with SlackApiStandIn(host=bridge_gateway()) as api:
        with tempfile.TemporaryDirectory(prefix=f"{PREFIX}-bench-") as work:
            workdir = Path(work)
            inventory = workdir / "hosts.yaml"
            inventory.write_text(INVENTORY)
            env = labbot_env(api)
            starts: list[Callable[[], Awaitable[float]]] = [
                lambda: in_container(images, env, inventory),
                lambda: on_host(env, inventory, workdir),
            ]
            if against is not None:
                starts.append(lambda: in_container(against, env, inventory))
            taken: list[list[float]] = [[] for _ in starts]
            for _ in range(runs):
                for times, start in zip(taken, starts, strict=True):
                    times.append(await start())
    return [statistics.median(times) for times in taken]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="starts measured (median)")
    parser.add_argument("--against", help="an earlier image to measure side by side")
    args = parser.parse_args()
    if problem := engine_problem():
        sys.exit(f"bench.container: {problem}")
    images = build_images()
    size, base, compressed = image_sizes(images)
    earlier = dataclasses.replace(images, labbot=args.against) if args.against else None
    container, host, *before = asyncio.run(ready_times(images, args.runs, earlier))
    print(
        f"image: {size / MB:.0f} MB (goal ≤ {GOAL_MB} MB) = base {base / MB:.0f} MB "
        f"+ labbot {(size - base) / MB:.0f} MB; compressed for a registry {compressed / MB:.0f} MB"
    )
    print(
        f"ready (median of {args.runs}): container {container:.2f} s "
        f"(goal ≤ {GOAL_SECONDS:.0f} s), the same command as a host process {host:.2f} s: "
        f"container/host ×{container / host:.2f}"
    )
    if earlier is not None:
        old_size, _, old_compressed = image_sizes(earlier)
        print(
            f"{args.against}: {old_size / MB:.0f} MB (compressed {old_compressed / MB:.0f} MB), "
            f"ready {before[0]:.2f} s; this image / it: size ×{size / old_size:.2f}, "
            f"ready ×{container / before[0]:.2f}"
        )


if __name__ == "__main__":
    main()

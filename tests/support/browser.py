"""Headless Chromium (the Debian package) for tests that check what a page shows on screen."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1200,1600",
)


@dataclass(frozen=True)
class Shown:
    dom: str  # the DOM after the page ran (what is on screen)
    screenshot: Path


def chromium() -> str:
    """The chromium binary; a missing one fails under CI=true, else skips."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "chromium is not installed (Debian package `chromium`, in .ci/debian-packages)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def artifacts_dir(name: str) -> Path:
    """Where screenshots are kept after the test (printed, so a person can look)."""
    root = Path(os.environ.get("LABBOT_TEST_ARTIFACTS", tempfile.gettempdir())) / "labbot-shots"
    root.mkdir(parents=True, exist_ok=True)
    print(f"screenshots of {name}: {root}")
    return root


def keep_for_docs(shot: Path, name: str) -> None:
    """With LABBOT_DOCS_IMG set (scripts/docs-pictures), save the screenshot there as `name`:
    cut to what the page shows (the white margin off) and in 256 colours, so it stays small."""
    folder = os.environ.get("LABBOT_DOCS_IMG")
    if not folder:
        return
    from PIL import Image, ImageOps  # Pillow draws the lab's pictures; only needed here

    with Image.open(shot) as image:
        rgb = image.convert("RGB")
    inked = ImageOps.invert(rgb).getbbox() or (0, 0, *rgb.size)
    left, top, right, bottom = inked
    margin = 16
    box = (max(left - margin, 0), max(top - margin, 0), right + margin, bottom + margin)
    rgb.crop(box).quantize(colors=256).save(Path(folder) / name, optimize=True)


def show(page: Path, name: str) -> Shown:
    """Open `page` in headless Chromium: its DOM, and a screenshot kept under artifacts_dir."""
    binary = chromium()
    shot = artifacts_dir(name) / f"{name}.png"
    with tempfile.TemporaryDirectory(prefix="labbot-chromium-") as profile:
        common = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
        url = page.resolve().as_uri()
        dom = subprocess.run(
            [*common, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True
        ).stdout
        subprocess.run(
            [*common, f"--screenshot={shot}", url], capture_output=True, timeout=120, check=True
        )
    return Shown(dom, shot)

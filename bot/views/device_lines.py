"""A device's lines at the params gate, shown once: each exact line pushed (masked) with where it
lands beside it, then only what adds to them: the running lines it removes or replaces, and its
copy's view where that differs from the lines as written. Pure."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from base.masking import SecretMask
from bot import messages
from workflow.model import platform_family
from workflow.phases.landing import Landing
from workflow.phases.previews import DevicePreview
from workflow.safety.sections import line_places

Section = tuple[str, str, str]  # (title, body, language)
Path = tuple[str, ...]  # a line's headers, then the line


def device_lines_sections(name: str, device: DevicePreview, mask: SecretMask) -> list[Section]:
    """The device's lines with their places; its removed running lines; its copy's view where
    it differs from the lines; the lines its copy refused."""
    lines, platform = device["lines"], device["platform"]
    landing = device.get("landing")
    tried = landing if landing is not None and "skipped" not in landing else None
    shown = placed_lines(lines, _places(lines, platform, tried), mask, platform)
    sections = [(messages.SECTION_DEVICE_LINES.format(device=name), shown, "text")]
    removed = removed_lines(device["diff"])
    if removed:
        body = mask.config(removed, platform)
        sections.append((messages.SECTION_DEVICE_REMOVES.format(device=name), body, "diff"))
    if tried is not None and tried["landed"] and not _as_written(lines, tried["landed"]):
        body = mask.config("\n".join(tried["landed"]))
        sections.append((messages.SECTION_LANDED.format(device=name), body, "diff"))
    if tried is not None and tried["refused"]:
        body = mask.config("\n".join(tried["refused"]))
        sections.append((messages.SECTION_TWIN_REFUSED.format(device=name), body, "text"))
    return sections


def placed_lines(
    lines: Sequence[str], places: Sequence[str | None], mask: SecretMask, platform: str
) -> str:
    """The lines (masked), each with its place beside it (`← global`); as they are without."""
    masked = mask.config("\n".join(lines), platform).split("\n")
    width = max((len(line) for line in masked), default=0)
    return "\n".join(
        messages.LINE_LANDS.format(line=line.ljust(width), place=place) if place else line
        for line, place in zip(masked, places, strict=False)
    )


def _places(lines: Sequence[str], platform: str, landing: Landing | None) -> list[str | None]:
    """Where each line lands: by the platform's mode grammar; else where its copy put a line
    at the place its indentation gives it; else nowhere said."""
    grammar = line_places(lines, platform_family(platform))
    if grammar is not None:
        found = iter(grammar)
        return [next(found, None) if line.strip() else None for line in lines]
    landed = set(_landed_paths(landing["landed"])) if landing is not None else set()
    return [
        (" > ".join(path[:-1]) or messages.PLACE_GLOBAL) if path in landed else None
        for path in _written_paths(lines)
    ]


def _written_paths(lines: Sequence[str]) -> Iterator[Path]:
    """Each line's path as its indentation writes it (a blank line's path is empty)."""
    headers: list[tuple[int, str]] = []
    for line in lines:
        text = line.strip()
        if not text:
            yield ()
            continue
        depth = len(line) - len(line.lstrip())
        headers = [(d, h) for d, h in headers if d < depth]
        yield (*(h for _, h in headers), text)
        headers.append((depth, text))


def _landed_paths(landed: Sequence[str]) -> Iterator[Path]:
    """Each line of a copy's landed diff (`+ ` a landed line, `  ` a header shown as context,
    one space a level; `workflow.phases.landing.landed_text`) as its path."""
    headers: list[str] = []
    for entry in landed:
        body = entry[2:]
        depth = len(body) - len(body.lstrip())
        headers = headers[:depth]
        yield (*headers, body.strip())
        headers.append(body.strip())


def _as_written(lines: Sequence[str], landed: Sequence[str]) -> bool:
    """The copy holds the lines just as written: nothing it shows (landed or as context) that
    is not a line pushed, and every line pushed there."""
    return {entry[2:].strip() for entry in landed} == {
        line.strip() for line in lines if line.strip()
    }


def removed_lines(diff: str) -> str:
    """The lines a diff against the running configuration takes away or replaces (`- …`), each
    under its headers; "" when the change only adds (the lines shown say that already)."""
    kept: list[str] = []
    headers: list[tuple[int, str]] = []
    for line in diff.splitlines():
        depth = len(line) - len(line.lstrip())
        headers = [(d, h) for d, h in headers if d < depth]
        if line.lstrip().startswith("- "):
            kept.extend(h for _, h in headers)
            headers = []
            kept.append(line)
        elif not line.lstrip().startswith("+ "):
            headers.append((depth, line))
    return "\n".join(kept)

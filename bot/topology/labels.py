"""Where each text of the lab's picture goes (pure geometry): a few candidate spots per label —
a device's name in or around its shape, an interface name near its end of the link, a subnet
near the link's middle — taken greedily, the first spot that covers no other label or device.
A grid of cells finds the neighbours, so hundreds of labels place in a blink."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # left, top, right, bottom
LabelKind = Literal["device", "interface", "subnet"]
CELL = 64.0  # px: the grid's cell
STEP = 8.0  # px between candidate spots along a link
GAP = 3.0  # px kept free around a label


@dataclass(frozen=True)
class Wanted:
    """A label to place: its text and size, the device it belongs to ("" none: it may cover
    no device) and its candidate centres, best first."""

    text: str
    kind: LabelKind
    owner: str
    size: tuple[float, float]
    spots: tuple[Point, ...]


@dataclass(frozen=True)
class Label:
    text: str
    kind: LabelKind
    box: Box
    owner: str


def centred(at: Point, size: tuple[float, float]) -> Box:
    (x, y), (w, h) = at, size
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def overlap(one: Box, other: Box) -> float:
    """The area two boxes share (0 when apart)."""
    width = min(one[2], other[2]) - max(one[0], other[0])
    height = min(one[3], other[3]) - max(one[1], other[1])
    return width * height if width > 0 and height > 0 else 0.0


class Occupied:
    """Boxes already taken, each with its owner (a device's own label may cover its shape)."""

    def __init__(self) -> None:
        self._cells: defaultdict[tuple[int, int], list[tuple[Box, str]]] = defaultdict(list)

    def add(self, box: Box, owner: str) -> None:
        for cell in _cells(box):
            self._cells[cell].append((box, owner))

    def covered(self, box: Box, owner: str) -> float:
        """The area of `box` other owners' boxes cover."""
        seen: set[int] = set()
        total = 0.0
        for cell in _cells(box):
            for other, whose in self._cells.get(cell, ()):
                if id(other) not in seen and (not owner or whose != owner):
                    seen.add(id(other))
                    total += overlap(box, other)
        return total


def _cells(box: Box) -> Iterator[tuple[int, int]]:
    for cx in range(math.floor(box[0] / CELL), math.floor(box[2] / CELL) + 1):
        for cy in range(math.floor(box[1] / CELL), math.floor(box[3] / CELL) + 1):
            yield cx, cy


def place(shapes: Sequence[tuple[Box, str]], wanted: Sequence[Wanted]) -> tuple[list[Label], int]:
    """Every label at its first free spot (else where it covers least); how many cover another
    label or a device."""
    taken = Occupied()
    for box, owner in shapes:
        taken.add(box, owner)
    labels, covering = [], 0
    for label in wanted:
        best, least = centred(label.spots[0], label.size), math.inf
        for spot in label.spots:
            box = centred(spot, label.size)
            area = taken.covered(_grown(box), label.owner)
            if area < least:
                best, least = box, area
            if area == 0:
                break
        covering += least > 0
        taken.add(best, label.owner)
        labels.append(Label(label.text, label.kind, best, label.owner))
    return labels, covering


def _grown(box: Box) -> Box:
    return (box[0] - GAP, box[1] - GAP, box[2] + GAP, box[3] + GAP)


def device_spots(at: Point, size: tuple[float, float], radius: float) -> tuple[Point, ...]:
    """Inside the shape when the name fits there, else below, above, right or left of it."""
    (x, y), (w, h) = at, size
    inside = ((x, y),) if w <= 2 * radius - 4 else ()
    away = radius + GAP + 1
    return (*inside, (x, y + away + h / 2), (x, y - away - h / 2),
            (x + away + w / 2, y), (x - away - w / 2, y))  # fmt: skip


def end_spots(
    near: Point, far: Point, size: tuple[float, float], radius: float
) -> tuple[Point, ...]:
    """Along the link from `near`, just past its shape, up to 45 % of the way, beside it."""
    return _along(near, far, size, radius, 0.45)


def middle_spots(a: Point, b: Point, size: tuple[float, float]) -> tuple[Point, ...]:
    """At the link's middle, then stepping away from it to either side along the link."""
    length = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    steps = [0.0, *(s * STEP * k for k in range(1, int(length / 4 / STEP) + 1) for s in (1, -1))]
    return tuple(
        (middle[0] + ux * step + nx * side, middle[1] + uy * step + ny * side)
        for step in steps
        for nx, ny, side in _sides(ux, uy, size, far=False)
    )


def _along(
    near: Point, far: Point, size: tuple[float, float], radius: float, reach: float
) -> tuple[Point, ...]:
    length = math.dist(near, far) or 1.0
    ux, uy = (far[0] - near[0]) / length, (far[1] - near[1]) / length
    half = abs(ux) * size[0] / 2 + abs(uy) * size[1] / 2  # the label's half-extent along it
    first = radius + GAP + half
    count = max(1, int((reach * length - first) / STEP) + 1)
    return tuple(
        (near[0] + ux * away + nx * side, near[1] + uy * away + ny * side)
        for away in (first + k * STEP for k in range(count))
        for nx, ny, side in _sides(ux, uy, size, far=True)
    )


def _sides(
    ux: float, uy: float, size: tuple[float, float], *, far: bool
) -> list[tuple[float, float, float]]:
    """(normal, how far): clear of the line on either side (so its colour shows), then (`far`:
    a short label) twice as far, then on it."""
    nx, ny = -uy, ux
    clear = abs(nx) * size[0] / 2 + abs(ny) * size[1] / 2 + GAP
    sides = (clear, -clear, 2 * clear, -2 * clear, 0.0) if far else (clear, -clear, 0.0)
    return [(nx, ny, side) for side in sides]

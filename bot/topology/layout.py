"""Where each device goes in the lab's picture: a force-directed (Fruchterman–Reingold) layout in
plain Python — linked devices pull together, all devices push apart — seeded, so the same lab
gives the same picture at every gate. Bounded: repulsion only within reach (a grid of cells),
a fixed number of rounds, so 300 devices take a fraction of a second."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence

Point = tuple[float, float]
ROUNDS = 100
SEED = 7
GRAVITY = 0.1  # pull towards the middle, per unit of distance


def spring_layout(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> dict[str, Point]:
    """Each node's place in the unit square [0, 1]²."""
    if len(nodes) <= 1:
        return {node: (0.5, 0.5) for node in nodes}
    index = {node: i for i, node in enumerate(nodes)}
    pairs = sorted({(min(index[a], index[b]), max(index[a], index[b])) for a, b in edges})
    spacing = 1 / math.sqrt(len(nodes))  # the ideal distance between neighbours
    rng = random.Random(SEED)
    places = [[rng.random(), rng.random()] for _ in nodes]
    for round_ in range(ROUNDS):
        moves = _repulsion(places, spacing)
        _attraction(moves, places, pairs, spacing)
        largest = 0.1 * (1 - round_ / ROUNDS)  # cooling: big moves first, then settle
        for place, move in zip(places, moves, strict=True):
            move[0] -= GRAVITY * (place[0] - 0.5)  # separate parts stay near each other
            move[1] -= GRAVITY * (place[1] - 0.5)
            length = math.hypot(*move) or 1.0
            place[0] += move[0] / length * min(length, largest)
            place[1] += move[1] / length * min(length, largest)
    return _fit([(x, y) for x, y in places], nodes)


def _repulsion(places: list[list[float]], spacing: float) -> list[list[float]]:
    """Each node pushed away by the nodes within two spacings (spacing² / d; a grid finds them)."""
    reach = 2 * spacing
    reach_squared, spacing_squared = reach * reach, spacing * spacing
    cells: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (x, y) in enumerate(places):
        cells[(int(x // reach), int(y // reach))].append(i)
    moves = [[0.0, 0.0] for _ in places]
    for (cx, cy), members in cells.items():
        near = [
            (j, *places[j]) for ox in (-1, 0, 1) for oy in (-1, 0, 1)
            for j in cells.get((cx + ox, cy + oy), ())
        ]  # fmt: skip
        for i in members:
            (xi, yi), move = places[i], moves[i]
            for j, xj, yj in near:
                dx, dy = xi - xj, yi - yj
                squared = dx * dx + dy * dy
                if squared < reach_squared and j != i:
                    force = spacing_squared / max(squared, 1e-9)
                    move[0] += dx * force
                    move[1] += dy * force
    return moves


def _attraction(
    moves: list[list[float]],
    places: list[list[float]],
    pairs: list[tuple[int, int]],
    spacing: float,
) -> None:
    """Each link pulls its two ends together (d² / spacing)."""
    for i, j in pairs:
        dx, dy = places[i][0] - places[j][0], places[i][1] - places[j][1]
        force = math.hypot(dx, dy) / spacing
        moves[i][0] -= dx * force
        moves[i][1] -= dy * force
        moves[j][0] += dx * force
        moves[j][1] += dy * force


def _fit(points: list[Point], nodes: Sequence[str]) -> dict[str, Point]:
    """Scaled (same factor on both axes) and centred into the unit square."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    size = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    left = min(xs) - (size - (max(xs) - min(xs))) / 2
    bottom = min(ys) - (size - (max(ys) - min(ys))) / 2
    return {
        node: ((x - left) / size, (y - bottom) / size)
        for node, (x, y) in zip(nodes, points, strict=True)
    }

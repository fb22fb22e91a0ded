"""The picture's layout: the same lab gives the same places, every device inside the square and
apart from the others, linked devices nearer each other than the rest, on up to 300 devices."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from bot.topology.layout import spring_layout


def tree(count: int, extra: int = 0) -> tuple[list[str], list[tuple[str, str]]]:
    """A random connected lab of `count` devices, with `extra` links that close loops."""
    chosen = random.Random(count)
    names = [f"R{n}" for n in range(1, count + 1)]
    edges = [(names[i], names[chosen.randrange(i)]) for i in range(1, count)]
    edges += [(chosen.choice(names), chosen.choice(names)) for _ in range(extra)]
    return names, edges


@pytest.mark.parametrize(("count", "extra"), [(2, 0), (4, 0), (20, 4), (100, 20), (300, 60)])
def test_places_are_inside_apart_and_linked_devices_are_near(count: int, extra: int) -> None:
    names, edges = tree(count, extra)
    places = spring_layout(names, edges)
    assert places == spring_layout(names, edges)  # the same picture at every gate
    assert set(places) == set(names)
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in places.values())
    distances = {frozenset(pair): math.dist(places[pair[0]], places[pair[1]])
                 for pair in itertools.combinations(names, 2)}  # fmt: skip
    spacing = 1 / math.sqrt(count)
    assert min(distances.values()) > 0.1 * spacing  # no device hidden under another
    linked = {frozenset(edge) for edge in edges if edge[0] != edge[1]}
    near = [distance for pair, distance in distances.items() if pair in linked]
    apart = [distance for pair, distance in distances.items() if pair not in linked]
    assert not apart or sum(near) / len(near) < 0.6 * sum(apart) / len(apart)


def test_no_device_one_device_and_separate_parts() -> None:
    assert spring_layout([], []) == {}
    assert spring_layout(["R1"], []) == {"R1": (0.5, 0.5)}
    places = spring_layout(["R1", "R2", "R3", "R4"], [("R1", "R2"), ("R3", "R4")])
    assert math.dist(places["R1"], places["R2"]) < math.dist(places["R1"], places["R3"])
    assert math.dist(places["R3"], places["R4"]) < math.dist(places["R2"], places["R4"])

"""Reading the lab's picture as a person would: the colour of its pixels along a link (away
from every label and shape) and inside a label's box, and which labels cover others."""

from __future__ import annotations

import io
import itertools
from collections import Counter

from PIL import Image

from bot.topology.labels import Box, overlap
from bot.topology.picture import DrawnLink, Picture
from bot.topology.scene import Scene
from bot.topology.shapes import RADIUS, shape_box


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def near(pixel: tuple[int, ...], colour: str, slack: int = 12) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(pixel[:3], rgb(colour), strict=True))


def image_of(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def link_colour(image: Image.Image, picture: Picture, link: DrawnLink) -> tuple[int, int, int]:
    """The commonest colour on the link's line, sampled where no label or shape is drawn."""
    (ax, ay), (bx, by) = link.ends
    covered = [label.box for label in picture.labels] + [
        (x - 2 * RADIUS, y - 2 * RADIUS, x + 2 * RADIUS, y + 2 * RADIUS)
        for x, y in picture.nodes.values()
    ]
    seen: Counter[tuple[int, int, int]] = Counter()
    for step in range(1, 40):
        x, y = ax + (bx - ax) * step / 40, ay + (by - ay) * step / 40
        if not any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for box in covered):
            seen[image.getpixel((round(x), round(y)))] += 1  # type: ignore[index]
    assert seen, f"the link {link.a}-{link.b} is hidden under labels"
    return seen.most_common(1)[0][0]


def inked(image: Image.Image, box: Box, ink: str = "#1a202c") -> bool:
    """Whether text is drawn in the box: some pixels there are (near) the ink."""
    left, top, right, bottom = (round(v) for v in box)
    crop = image.crop((left, top, right, bottom))
    return any(near(pixel, ink, 60) for _, pixel in crop.getcolors(1 << 16) or [])


def covering_pairs(picture: Picture, scene: Scene) -> list[tuple[str, str]]:
    """Labels that share pixels with another label, or with a device's shape other than their
    own device's (a name inside its own shape is where it belongs)."""
    shapes = [
        (shape_box(scene.shapes.get(name, "other"), at), name) for name, at in picture.nodes.items()
    ]
    pairs = [
        (one.text, other.text)
        for one, other in itertools.combinations(picture.labels, 2)
        if overlap(one.box, other.box) > 0
    ]
    pairs += [
        (label.text, name)
        for label in picture.labels
        for box, name in shapes
        if name != label.owner and overlap(label.box, box) > 0
    ]
    return pairs


def colours_in(png: bytes) -> set[tuple[int, int, int]]:
    return {pixel for _, pixel in image_of(png).getcolors(maxcolors=1 << 22) or []}

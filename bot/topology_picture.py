"""A picture of the lab from the inventory's links: a networkx layout drawn by matplotlib's Agg
backend into a PNG (no display, no pyplot state: safe in a worker thread). Each device is
coloured by what the change does to it; the picture says where every label was drawn."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from workflow.model import Link

Role = Literal["target", "other", "pushed", "failed", "postcheck_failed"]
COLOURS: dict[Role, str] = {
    "target": "#2b6cb0",  # blue: this change touches it
    "other": "#cbd5e0",  # grey: not part of the change
    "pushed": "#2f855a",  # green
    "failed": "#c53030",  # red
    "postcheck_failed": "#dd6b20",  # orange: pushed, but a post-check failed
}
LEGEND: dict[Role, str] = {
    "target": "changed by this request",
    "other": "not touched",
    "pushed": "pushed",
    "failed": "push failed",
    "postcheck_failed": "post-check failed",
}
MAX_DEVICES = 300  # drawn per picture; a bigger lab is refused (the caller says so)
WIDTH_PX, DPI = 1200, 100  # wide enough to read on a phone when zoomed, small in bytes


class TooManyDevices(ValueError):
    """The lab has more devices than one picture can show readably."""


@dataclass(frozen=True)
class Picture:
    png: bytes
    width: int
    height: int
    labels: dict[str, tuple[int, int]]  # device -> pixel (x, y from the top left) of its node


def draw_lab(
    devices: Sequence[str], links: Sequence[Link], roles: Mapping[str, Role], title: str
) -> Picture:
    """The lab with each device coloured by its role (unnamed devices: `other`)."""
    if len(devices) > MAX_DEVICES:
        raise TooManyDevices(f"{len(devices)} devices; a picture shows at most {MAX_DEVICES}")
    graph = nx.Graph()
    graph.add_nodes_from(sorted(devices))
    graph.add_edges_from(
        (link["a_device"], link["b_device"])
        for link in links
        if link["a_device"] in graph and link["b_device"] in graph
    )
    positions = _layout(graph)
    height_px = WIDTH_PX if len(devices) > 12 else WIDTH_PX * 3 // 4
    figure = Figure(figsize=(WIDTH_PX / DPI, height_px / DPI), dpi=DPI)
    FigureCanvasAgg(figure)  # Agg: no display, no pyplot state
    axes = figure.add_axes((0.02, 0.02, 0.96, 0.88))
    axes.set_axis_off()
    _draw(axes, graph, positions, roles, len(devices))
    figure.suptitle(title[:120], fontsize=16)
    _legend(figure, roles)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)  # drawn by the Agg canvas
    labels = _pixels(axes, positions, height_px)
    return Picture(buffer.getvalue(), WIDTH_PX, height_px, labels)


def _layout(graph: nx.Graph) -> dict[str, tuple[float, float]]:
    """Deterministic: the same lab gives the same picture at every gate."""
    if graph.number_of_nodes() <= 1:
        return {node: (0.0, 0.0) for node in graph}
    spread = 1.5 / math.sqrt(graph.number_of_nodes())
    layout = nx.spring_layout(graph, seed=7, k=spread, iterations=100)
    return {node: (float(x), float(y)) for node, (x, y) in layout.items()}


def _draw(
    axes: Axes,
    graph: nx.Graph,
    positions: dict[str, tuple[float, float]],
    roles: Mapping[str, Role],
    count: int,
) -> None:
    size = max(120, 1600 - 14 * count)  # node area in points², smaller for big labs
    font = max(6, 14 - count // 10)
    colours = [COLOURS[roles.get(node, "other")] for node in graph]
    nx.draw_networkx_edges(graph, positions, ax=axes, edge_color="#a0aec0", width=1.5)
    nx.draw_networkx_nodes(graph, positions, ax=axes, node_color=colours, node_size=size)
    nx.draw_networkx_labels(graph, positions, ax=axes, font_size=font, font_weight="bold")
    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    margin = 0.15 * max(1e-3, max(xs) - min(xs), max(ys) - min(ys))
    axes.set_xlim(min(xs) - margin, max(xs) + margin)
    axes.set_ylim(min(ys) - margin, max(ys) + margin)


def _legend(figure: Figure, roles: Mapping[str, Role]) -> None:
    used = sorted({*roles.values(), "other"}, key=list(COLOURS).index)
    handles = [Patch(color=COLOURS[role], label=LEGEND[role]) for role in used]
    figure.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.95),
        ncol=len(handles),
        fontsize=12,
        frameon=False,
    )


def _pixels(
    axes: Axes, positions: dict[str, tuple[float, float]], height_px: int
) -> dict[str, tuple[int, int]]:
    """Where each node landed in the PNG (matplotlib counts y from the bottom)."""
    transform = axes.transData
    found = {}
    for node, point in positions.items():
        x, y = transform.transform(point)
        found[node] = (round(float(x)), round(height_px - float(y)))
    return found

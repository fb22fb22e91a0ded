"""The hierarchical running configuration of one simulated device.

A configuration is an ordered tree of lines. A node with children is a section (`interface X`,
`router ospf 1`); a node with a verbatim `body` is a multi-line banner. The tree knows nothing
about vendors: the rules that decide where a line goes, which lines replace each other and how
the text is indented come from a `TreeRules` object supplied by the platform.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass
class ConfigNode:
    """One configuration line; `children` make it a section, `body` makes it a banner."""

    text: str
    children: list[ConfigNode] = field(default_factory=list)
    body: list[str] | None = None
    closing: str = ""

    def find(self, text: str) -> ConfigNode | None:
        """The child whose line is exactly `text`."""
        return next((child for child in self.children if child.text == text), None)

    def walk(self) -> Iterator[tuple[int, ConfigNode]]:
        """Every descendant with its depth (children of the root have depth 0)."""
        for child in self.children:
            yield 0, child
            for depth, node in child.walk():
                yield depth + 1, node


@dataclass(frozen=True)
class TreeRules:
    """What a platform tells the tree: indentation, uniqueness, order, displayed negations."""

    indent: str
    separator: str  # line between top-level sections ("!")
    sections: re.Pattern[str]  # top-level lines printed as sections even when empty
    single_valued: tuple[re.Pattern[str], ...]  # a match is a key: a new line replaces the old
    shown_negations: tuple[str, ...]  # "no X" lines the device displays (`no ip address`)
    order: tuple[str, ...]  # top-level line prefixes in the order the device prints them
    hidden_defaults: frozenset[str]  # lines that restore a default and are not printed
    footer: str  # last line of the rendered configuration ("end")


def line_key(rules: TreeRules, text: str) -> str | None:
    """The part of `text` that must be unique among siblings, or None if lines may repeat."""
    for pattern in rules.single_valued:
        match = pattern.match(text)
        if match:
            return match.group(0)
    return None


def _rank(rules: TreeRules, text: str) -> int:
    bare = text.removeprefix("no ")
    best, best_len = len(rules.order), -1
    for index, prefix in enumerate(rules.order):
        if (bare == prefix or bare.startswith(prefix + " ")) and len(prefix) > best_len:
            best, best_len = index, len(prefix)
    return best


def add_line(rules: TreeRules, parent: ConfigNode, text: str, *, top_level: bool) -> ConfigNode:
    """Add `text` under `parent` (or return the existing node) the way a device would.

    A line with a single-valued key replaces its sibling with the same key in place; a
    displayed negation (`no ip address`) disappears once its positive form is configured.
    """
    existing = parent.find(text)
    if existing is not None:
        return existing
    parent.children = [c for c in parent.children if not _is_negation_of(c.text, text)]
    if text in rules.hidden_defaults:
        return ConfigNode(text)  # `switchport` on EOS: the default is not printed
    key = line_key(rules, text)
    node = ConfigNode(text)
    if key is not None:
        for index, child in enumerate(parent.children):
            if line_key(rules, child.text) == key:
                node.children = child.children
                parent.children[index] = node
                return node
    if top_level:
        rank = _rank(rules, text)
        position = len(parent.children)
        while position > 0 and _rank(rules, parent.children[position - 1].text) > rank:
            position -= 1
        parent.children.insert(position, node)
    else:
        parent.children.append(node)
    return node


def _is_negation_of(existing: str, new: str) -> bool:
    if not existing.startswith("no "):
        return False
    negated = existing[3:]
    return new == negated or new.startswith(negated + " ")


def remove_line(rules: TreeRules, parent: ConfigNode, target: str, *, top_level: bool) -> bool:
    """Apply `no <target>`: drop the matching line or section; True if anything changed."""
    before = len(parent.children)
    parent.children = [c for c in parent.children if not _matches(c.text, target)]
    removed = len(parent.children) != before
    for negation in rules.shown_negations:
        positive = negation[3:]
        if _matches(target, positive):
            has_positive = any(_matches(c.text, positive) for c in parent.children)
            if not has_positive and parent.find(negation) is None:
                add_line(rules, parent, negation, top_level=top_level)
                removed = True
    return removed


def _matches(line: str, target: str) -> bool:
    return line == target or line.startswith(target + " ")


def render(rules: TreeRules, root: ConfigNode) -> str:
    """The configuration as the device prints it (without any command header)."""
    lines: list[str] = []
    previous_was_section = False
    for child in root.children:
        is_section = bool(child.children or rules.sections.match(child.text))
        if (is_section or previous_was_section) and lines and lines[-1] != rules.separator:
            lines.append(rules.separator)
        lines.extend(_render_node(rules, child, 0))
        previous_was_section = is_section
    if lines and lines[-1] != rules.separator:
        lines.append(rules.separator)
    lines.append(rules.footer)
    return "\n".join(lines) + "\n"


def _render_node(rules: TreeRules, node: ConfigNode, depth: int) -> list[str]:
    lines = [rules.indent * depth + node.text]
    if node.body is not None:
        lines.extend(node.body)
        lines.append(node.closing)
    for child in node.children:
        lines.extend(_render_node(rules, child, depth + 1))
    return lines


BannerStart = Callable[[str], str | None]  # line -> closing delimiter if it opens a banner


def parse(text: str, banner_start: BannerStart) -> ConfigNode:
    """Read a running configuration printed by a device (any indentation) back into a tree.

    Comment lines (`!`), the `end` footer and the `Building configuration...` header are
    skipped; deeper indentation than the previous line makes a child of it.
    """
    root = ConfigNode("")
    stack: list[tuple[int, ConfigNode]] = [(-1, root)]
    lines = iter(text.splitlines())
    for raw in lines:
        stripped = raw.strip()
        if _is_noise(stripped):
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        node = ConfigNode(stripped)
        closing = banner_start(stripped) if depth == 0 else None
        if closing is not None and stripped.count(closing) < 2:
            node.body, node.closing = _read_banner(lines, closing)
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


def _read_banner(lines: Iterator[str], closing: str) -> tuple[list[str], str]:
    body: list[str] = []
    for raw in lines:
        if closing in raw:
            before = raw.split(closing, 1)[0]
            if before:
                body.append(before)
            return body, closing
        body.append(raw)
    return body, closing


_NOISE = re.compile(r"^(!.*|end|Building configuration\.\.\.|Current configuration.*)$")


def _is_noise(stripped: str) -> bool:
    return not stripped or bool(_NOISE.match(stripped))

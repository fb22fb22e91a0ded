"""The commands one configuration mode accepts, as a tree of keywords (closed world).

A mode's commands are written as specs, one a line, the way command references print them:
`ip address` accepts `ip address …` (any words after), `ip ospf !name-lookup` accepts `ip ospf
cost 10` but not `ip ospf name-lookup` (a global command), `spanning-tree portfast $` accepts
exactly those words, `<any> permit|deny` takes one word of any value before `permit` or `deny`,
`<n>` one word of digits (`mlag <n> $`: a port channel's MLAG id, not `mlag configuration`),
and `a|b` names alternatives. A command is read two or more words deep
wherever its first word is shared with another mode (`ip`, `arp`, `logging`, …): what a mode does
not list, it does not accept, and the device runs the line in an enclosing mode or refuses it.

Typed words are read as the device reads them: a keyword may be cut to any prefix that no other
keyword at that place shares (`ip add` is `ip address`); an ambiguous or unknown word is not
accepted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ANY_WORD = "<any>"
NUMBER = "<n>"
END = "$"


@dataclass
class CommandNode:
    """One place in the keyword tree: the keywords that may follow, a word of any value, and
    whether the line may end here or continue freely (`free`, but not with `not_before`)."""

    keywords: dict[str, CommandNode] = field(default_factory=dict)
    any_word: CommandNode | None = None
    number: CommandNode | None = None  # a word of digits
    end: bool = False  # the line may end here
    free: bool = False  # any words may follow (none included)
    not_before: frozenset[str] = frozenset()  # when free: words that may not come next


def command_tree(specs: Iterable[str]) -> CommandNode:
    """The tree of `specs` (see the module docstring)."""
    root = CommandNode()
    for spec in specs:
        _add(root, spec.split())
    return root


def _add(node: CommandNode, words: Sequence[str]) -> None:
    if not words:
        node.free = True
        return
    word, rest = words[0], words[1:]
    if word == END:
        node.end = True
        return
    if word.startswith("!"):
        node.free = True
        node.not_before = node.not_before | frozenset(word[1:].split("|"))
        return
    if word == ANY_WORD:
        node.any_word = node.any_word or CommandNode()
        _add(node.any_word, rest)
        return
    if word == NUMBER:
        node.number = node.number or CommandNode()
        _add(node.number, rest)
        return
    for keyword in word.split("|"):
        _add(node.keywords.setdefault(keyword, CommandNode()), rest)


def merged(*trees: CommandNode) -> CommandNode:
    """One tree accepting what any of `trees` accepts (a platform extending another)."""
    into = CommandNode()
    for tree in trees:
        _merge(into, tree)
    return into


def _merge(into: CommandNode, tree: CommandNode) -> None:
    into.end = into.end or tree.end
    into.free = into.free or tree.free
    into.not_before = into.not_before | tree.not_before
    for keyword, child in tree.keywords.items():
        _merge(into.keywords.setdefault(keyword, CommandNode()), child)
    if tree.any_word is not None:
        into.any_word = into.any_word or CommandNode()
        _merge(into.any_word, tree.any_word)
    if tree.number is not None:
        into.number = into.number or CommandNode()
        _merge(into.number, tree.number)


def keyword_for(typed: str, keywords: Mapping[str, object]) -> str | None:
    """The one keyword `typed` names: itself, or the only keyword it is a prefix of."""
    if typed in keywords:
        return typed
    found = [keyword for keyword in keywords if keyword.startswith(typed)]
    return found[0] if len(found) == 1 else None


def accepted(tree: CommandNode, words: Sequence[str]) -> list[str] | None:
    """`words` (case-folded) with their keywords spelled out, if the tree accepts them."""
    node, spelled = tree, []
    for index, typed in enumerate(words):
        keyword = keyword_for(typed, node.keywords)
        if keyword is not None:
            node = node.keywords[keyword]
            spelled.append(keyword)
            continue
        if node.number is not None and typed.isdigit():
            node = node.number
            spelled.append(typed)
            continue
        if node.any_word is not None and not _names_keyword(typed, node.keywords):
            node = node.any_word
            spelled.append(typed)
            continue
        if node.free and not any(w.startswith(typed) for w in node.not_before):
            return [*spelled, *words[index:]]
        return None
    return spelled if node.end or node.free else None


def exact_keywords(tree: CommandNode, words: Sequence[str]) -> set[int]:
    """The positions where the tree reads a typed word as a keyword typed in full."""
    node, found = tree, set()
    for index, typed in enumerate(words):
        keyword = keyword_for(typed, node.keywords)
        if keyword is not None:
            if keyword == typed:
                found.add(index)
            node = node.keywords[keyword]
        elif node.number is not None and typed.isdigit():
            node = node.number
        elif node.any_word is not None:
            node = node.any_word
        else:
            break
    return found


def _names_keyword(typed: str, keywords: Iterable[str]) -> bool:
    """Whether `typed` is a prefix of several keywords (ambiguous: the device refuses it)."""
    return any(keyword.startswith(typed) for keyword in keywords)


def first_keywords(tree: CommandNode) -> frozenset[str]:
    return frozenset(tree.keywords)

"""A Modify's words for a list parameter: add, remove, or replace."""

from __future__ import annotations

from workflow.library.list_edits import edited, split_edits

SCHEMA = {"servers": {"type": "list"}, "source": {"type": "str"}}


def test_add_and_remove_words_edit_the_list_and_other_values_replace() -> None:
    kept, edits = split_edits("add server 10.0.0.2", {"servers": ["10.0.0.2"]}, SCHEMA)
    assert (kept, edits) == ({}, {"servers": ("add", ["10.0.0.2"])})
    assert edited(["10.0.0.1"], edits["servers"]) == ["10.0.0.1", "10.0.0.2"]
    kept, edits = split_edits(
        "drop server 10.0.0.1 source Lo0", {"servers": ["10.0.0.1"], "source": "Lo0"}, SCHEMA
    )
    assert (kept, edits) == ({"source": "Lo0"}, {"servers": ("remove", ["10.0.0.1"])})
    assert edited(["10.0.0.1", "10.0.0.2"], edits["servers"]) == ["10.0.0.2"]


def test_without_an_edit_word_or_with_both_the_values_replace() -> None:
    assert split_edits("servers=10.0.0.9", {"servers": ["10.0.0.9"]}, SCHEMA)[1] == {}
    both = "add server 10.0.0.3 and remove 10.0.0.1"
    assert split_edits(both, {"servers": ["10.0.0.3"]}, SCHEMA) == ({"servers": ["10.0.0.3"]}, {})

"""The template library: listings, saving, versions, pins, diffs and figures."""

from __future__ import annotations

# the `templates` and `save` commands' lines in `help`
HELP_TEMPLATES = """\
  templates [NAME[@V]]      the template library (built-in and saved), or one template
  templates history|stats   versions of a saved template; uses, success, tokens
  templates diff A@1 A@2    what changed between two versions
  templates pin NAME@V      use that version in this channel (templates unpin NAME)"""
HELP_SAVE = (
    "  save as NAME [TEXT]       save the template approved in this thread (TEXT: description)"
)
SAVE_USAGE = (
    "Usage: save as NAME [description]: saves the template approved in this thread as the next "
    "version of NAME (`save as NAME@3` asks for version 3)."
)
NOTHING_APPROVED = (
    "Nothing to save here: `save as NAME` saves the template approved in this thread. Approve "
    "a template gate first (or ask for a change and approve its template)."
)
SAVE_ROLLBACK = "A rollback's literal lines are not a template; nothing was saved."
SAVE_BUILTIN = (
    "{name} is a built-in template; save under another name (e.g. {name}_lab). Nothing was saved."
)
SAVE_TEST_FAILED = (
    "Not saved: the template test failed on a simulated copy of {device}:\n{errors}\n"
    "Fix the template (Modify at its gate) and save the approved one."
)
SAVED = (
    "Saved {label} (sha256 {sha}), the template approved in change {change_id} (approved "
    "content sha256 {approved}). Reuse it: `apply {name} to R1,R2`."
)
ALREADY_SAVED = (
    "This template is already saved as {label} (sha256 {sha}, by {who} at {at}); nothing new "
    "was stored."
)
VERSION_SKIPS = "{name}@{version} cannot be saved: the next version of {name} is {next}."
VERSION_TAKEN = (
    "{name}@{version} already exists{who}; versions never change, so nothing was stored: save "
    "without a version to make it {name}@{next}."
)
VERSION_TAKEN_BY = " (saved by {who} at {at})"
VERSION_RACE = (
    "{name} was saved by someone else at the same moment; nothing was stored: save again to get "
    "the next version."
)
NO_SAVED = "There is no saved template {name!r}. Saved: {known}."
NO_VERSION = "There is no {name}@{version}: {name} has version(s) {versions}."
PIN_USAGE = "Usage: templates pin NAME@VERSION (templates unpin NAME)."
PINNED = "In this channel `{name}` now means {name}@{version} (until `templates unpin {name}`)."
UNPINNED = "`{name}` means its latest version in this channel again."
NOT_PINNED = "{name} is not pinned in this channel."
DIFF_USAGE = "Usage: templates diff NAME@A NAME@B (or NAME A B)."
SECTION_LIBRARY = "Template library"
CATALOG = "{count} templates. Use one: `apply NAME to R1,R2 key=value …`; see `templates NAME`."
TEMPLATE_SHOWN = "Template `{name}`: {description}"
SAVED_TEMPLATE_SHOWN = (
    "Template `{label}`: {description}\nsaved by {who} at {at}{origin} · sha256 {sha}"
)
FROM_CHANGE = ", from change {change_id}"
TEMPLATE_HISTORY = "{name}: {count} version(s), newest last"
TEMPLATES_SAME = "{old} and {new} have the same content."
TEMPLATES_DIFF = "What changed from {old} to {new}"
TEMPLATE_STATS = (
    "Template use: {changes} change(s); tokens spent {spent}, saved by reusing saved templates "
    "{saved}. Devices: successful pushes / pushes."
)
LIBRARY = (
    "{builtin} built-in and {saved} saved template(s). Use one: `apply NAME[@V] to R1,R2 "
    "key=value …`, combine: `apply a + b to R1`; see `templates NAME`."
)
LIBRARY_SAVED_BY = "  by {who} {day}{pin}"
LIBRARY_PINNED = " (pinned here: @{version})"
LIBRARY_NONE_SAVED = "(none yet: `save as NAME`)"
SECTION_SAVED = "Saved (team library)"
SECTION_BUILTIN = "Built-in"
NOT_A_REF = "{text!r} is not NAME or NAME@VERSION (e.g. lab_ospf@2)"
NONE_SAVED_YET = "none yet"
ONE_VERSION = "{name} has one version only; nothing to compare"
# a parameter row's value when the request gave it (`area: int = 1 (from the request; default 0)`)
FROM_REQUEST = "{value} (from the request)"
FROM_REQUEST_DEFAULT = "{value} (from the request; default {default})"

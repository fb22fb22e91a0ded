"""Where a change's lines land: at the params gate (each device's twin), after the push (the
device itself), at the rollback gate that follows and in how it ended."""

from __future__ import annotations

LANDING_CHECKED = (
    "\n✓ Where the lines land was checked on a copy of {checked} device(s) "
    "(its own configuration after them): every line is inside the sections."
)
LANDING_NOT_CHECKED = (
    "\nℹ️ Not tried on a copy before the push: {devices}. Where their lines land is checked on "
    "each device right after the push (a line outside the sections offers the rollback)."
)
LANDING_SKIPPED_WHY = {
    "no_twin": "{device} (no copy for {platform})",
    "timeout": "{device} (its copy did not answer in time)",
}
LANDING_REFUSED_AT_GATE = "\n⚠️ A copy refused {count} line(s) (see below): the device may too."
MISSING_INTERFACE = "\n⚠️ {device} has no interface {interface}{closest}: the push would fail there."
CHANGED_SINCE = "\nℹ️ Changed from the last preview: {changes}."
CHANGED_PARAM = "{device} {param}: {before} → {now}"
CHANGED_NOTHING = "(none)"
MISSING_CLOSEST = " (the closest it has: {closest})"
LINE_LANDS = "{line}  ← {place}"  # a device's line at the params gate, where it lands
PLACE_GLOBAL = "global"  # where a top-level line lands
LANDING_MODEL = "\nWhere each line lands: {models}."
LANDING_MODEL_OF = "{family} by {model}"
SECTION_LANDED = "{device}: where its copy holds them (not just as written)"
SECTION_TWIN_REFUSED = "{device}: lines its copy refused"
RESTORES = (
    "\nℹ️ A rollback declares no sections: it restores each device's configuration saved "
    "before the change, with lines computed from that backup (never by a planner)."
)
LANDED_OUTSIDE_GATE = (
    "*Lines landed outside the template's sections* for change {change_id} on {devices}: "
    "each device below shows them where they are now. Roll back returns each device to its "
    "configuration before the change; Keep leaves the change as pushed."
)
SECTION_LANDED_OUTSIDE = "{device}: outside the sections"
LANDED_OUTSIDE_ENDED = {
    "expired": (
        "lines landed outside the sections ({outside}); the rollback review expired at {at}, "
        "the change stays as pushed."
    ),
    "kept": "lines landed outside the sections ({outside}); {actor} kept the change as pushed.",
    "rolled_back": (
        "lines landed outside the sections ({outside}); rolled back as approved by {actor}."
    ),
    "rolled_back_partly": "lines landed outside the sections ({outside}); {rollback}",
}
OUTSIDE_ON = "{device}: {lines}"

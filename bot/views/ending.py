"""How a finished change is said: the workflow's typed endings (workflow/results/endings.py) worded
with
bot/messages/, and a TargetError's fields worded for any request naming devices."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from base.errors import TargetError
from base.masking import SecretMask
from base.vocabulary import TargetProblem, stamp
from bot import messages
from bot.views.landed import landed_somewhere
from bot.views.landing import outside_text
from bot.views.not_pushed import not_pushed_ended
from bot.views.postcheck import failures_text, item_body
from workflow.api import Finished
from workflow.model import StandardResponse, TemplatePart
from workflow.results.endings import (
    Ending,
    GateEnding,
    Pushed,
    Refusal,
    RollbackEnding,
    TargetsEnding,
    UnusableDevice,
)

__all__ = ["ending_line", "target_problem"]


def ending_line(finished: Finished, mask: SecretMask) -> str:
    """Why the change ended, in one line (more when it lists errors); the lines it quotes
    with their secret values masked."""
    ending = finished.ending
    if ending is None:  # a checkpoint from before typed endings said it in words
        return finished.message
    return why_ended(ending, finished.result, mask)


def why_ended(ending: Ending, result: StandardResponse | None, mask: SecretMask) -> str:
    """The sentence for `ending`; `result`: the push's, which a "pushed" ending summarises;
    a configuration line it quotes (a refused one, between backquotes in an error) with its
    secret values masked (`mask`), as every view shows lines."""
    if ending["kind"] == "expired" or ending["kind"] == "cancelled":
        return _at_gate(ending)
    if ending["kind"] == "pushed":
        return _pushed(ending, result)
    fields: dict[str, object] = dict(ending)
    if ending["kind"] == "targets":
        fields["targets"] = target_problem(ending)
    elif ending["kind"] == "lab_unreadable" and ending["again"]:
        return messages.LAB_UNREADABLE_AGAIN.format(error=ending["error"])
    elif ending["kind"] == "no_usable_device":
        fields["devices"] = _unusable(ending["devices"])
    elif ending["kind"] == "planner_failed":
        fields["stage"] = messages.PROPOSAL_OF[ending["stage"]]
    elif ending["kind"] == "still_invalid":
        fields["errors"] = "\n".join(
            f"- {_quoted_masked(error, mask)}" for error in ending["errors"]
        )
    elif ending["kind"] == "devices_held":
        fields["held"] = "; ".join(messages.DEVICE_HELD.format(**held) for held in ending["held"])
    elif ending["kind"] == "hash_mismatch":
        fields.update(planned=ending["planned"][:12], approved=ending["approved"][:12] or "none")
    elif ending["kind"] == "rollback_not_started":
        fields["failures"] = failures_text(ending["failures"])
    elif ending["kind"] == "push_refused":
        refused = "; ".join(_refusal(refusal, mask) for refusal in ending["refusals"])
        template = (
            messages.ROLLBACK_REFUSED if ending["rollback"] else messages.ENDED["push_refused"]
        )
        return template.format(refusals=refused)
    return messages.ENDED[ending["kind"]].format(**fields)


def target_problem(fields: TargetsEnding | TargetError) -> str:
    """Why a request's devices cannot be told, naming the lab's devices."""
    if isinstance(fields, TargetError):
        problem: TargetProblem = fields.problem
        word, known, count, limit = fields.word, list(fields.known), fields.count, fields.limit
    else:
        problem, word, known = fields["problem"], fields["word"], fields["known"]
        count, limit = fields["count"], fields["limit"]
    return messages.TARGET_PROBLEM[problem].format(
        word=word, known=", ".join(known) or messages.NONE, count=count, limit=limit
    )


def rollback_line(ending: RollbackEnding | None, mask: SecretMask) -> str:
    """How the offer to roll back failed post-checks ended ("" when there was none): an
    approved rollback whose push failed on a device says it is not rolled back there."""
    if ending is None:
        return ""
    kind: str = ending["kind"]
    rollback = ""
    if failed := ending.get("not_rolled_back"):
        kind, done = "rolled_back_partly", ending.get("rolled_back_on", [])
        rollback = (
            messages.ROLLED_BACK_ON.format(devices=", ".join(done), actor=ending["actor"])
            if done
            else messages.ROLLBACK_APPROVED.format(actor=ending["actor"])
        ) + messages.NOT_ROLLED_BACK.format(
            failures=failures_text(failed),
            devices=",".join(item["name"] for item in failed),
        )
    fields = {"at": _stamp(ending["at"]), "actor": ending["actor"], "rollback": rollback}
    if ending.get("outside"):
        outside = outside_text(ending.get("outside", {}), mask)
        said = messages.LANDED_OUTSIDE_ENDED[kind].format(outside=outside, **fields)
    elif not ending["failures"] and ending.get("not_pushed"):  # the push broke off
        said = messages.BROKE_OFF_ENDED[kind].format(**fields)
    else:
        failures = failures_text(ending["failures"])
        said = messages.ROLLBACK_ENDED[kind].format(failures=failures, **fields)
    return said + not_pushed_ended(ending)


def newer_line(newer: Mapping[str, int], used: list[TemplatePart]) -> str:
    """Which saved templates have a newer version than the change used ("" when none)."""
    if not newer:
        return ""
    version = {part["name"]: part["version"] for part in used}
    listed = ", ".join(
        messages.NEWER_VERSION.format(name=name, newest=newest, used=version.get(name))
        for name, newest in newer.items()
    )
    return messages.NEWER_AT_END.format(versions=listed)


def device_failures(result: StandardResponse) -> str:
    """`R2: evidence; R3: …`: each device of `result` that did not succeed, with its error."""
    return "; ".join(
        messages.DEVICE_FAILED.format(device=item["name"], error=item_body(item))
        for item in result["data"]
        if item["status"] != "success"
    )


def _at_gate(ending: GateEnding) -> str:
    return messages.ENDED[ending["kind"]].format(
        gate=ending["gate"],
        at=_stamp(ending["at"]),
        actor=ending["actor"],
        pushed=messages.NOTHING_MORE_PUSHED if ending["pushed"] else messages.NOTHING_PUSHED,
    )


def _pushed(ending: Pushed, result: StandardResponse | None) -> str:
    if result is None:
        return ""
    template = messages.ROLLBACK_PUSHED if ending["rollback"] else messages.ENDED["pushed"]
    # a device whose push failed after lines landed there holds them: it was pushed to
    landed = [item for item in result["data"] if landed_somewhere(item.get("landed"))]
    done = template.format(ok=result["successful"] + len(landed), total=result["total"])
    failures = device_failures(result)
    return done + messages.PUSH_FAILED_ON.format(failures=failures) if failures else done


def _unusable(devices: list[UnusableDevice]) -> str:
    listed = "; ".join(
        messages.DEVICE_FAILED.format(device=d["name"], error=d["reason"]) for d in devices
    )
    return listed or messages.NONE_FOUND


def _refusal(refusal: Refusal, mask: SecretMask) -> str:
    shown = {**refusal, "line": mask.config(refusal["line"])}
    return messages.REFUSED_LINE[refusal["rule"]].format(**shown)


_QUOTED = re.compile(r"`([^`\n]*)`")  # a line an error quotes


def _quoted_masked(error: str, mask: SecretMask) -> str:
    """`error` with each line it quotes masked; its own words (a rule's reason naming a
    `password`) as written."""
    return _QUOTED.sub(lambda quoted: f"`{mask.config(quoted.group(1))}`", error)


def _stamp(iso: str) -> str:
    return stamp(datetime.fromisoformat(iso))

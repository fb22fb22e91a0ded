"""What the decision service tells a thread and keeps on record about it.

The service decides and runs (authorize → record → resume); the reporter shows and books what
came of it: a click's answer (bot.decisions.click_answers, one call: `answer_click`; a settled
gate closed, its buttons swapped for who decided by the adapter, the gate not rendered again),
the pushes a step made (its push records, booked once: each step carries only its own), a gate
posted (its message id remembered for decisions that do not name it), push progress edited in
place (`running`: the sink the service resumes with; the push known to a stop while it runs), a
finished change with its bookkeeping (the outcome, the templates used, metrics), and refusals
(recorded, counted, told only to the person refused). Each thing shown is one call of the
service.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

from adapters.chat import Actor, ChatAdapter, Decision, FilesNotAttached, Message, ThreadRef
from base.masking import SecretMask
from base.vocabulary import Choice, Outcome, stamp, utc_now
from bot import messages
from bot.decisions.click_answers import (
    ClickAnswer,
    Expired,
    ModifyNotUnderstood,
    Refused,
    Resume,
    Voted,
)
from bot.decisions.metrics import Metrics, process_metrics
from bot.decisions.push_booking import PushesInFlight, push_row
from bot.policy.agent_principals import is_agent_id
from bot.topology.thread_pictures import PICTURE_NAME, LabPictures, PictureNotDrawn
from bot.views import presenter
from bot.views.decided import decided_footer
from bot.views.ending import ending_line
from storage.ports import DecisionRecords, TemplateUses
from workflow.api import Finished, Gate, PendingGate, Step, pushed_on
from workflow.model import LLMProgress, PushProgress, StepProgress
from workflow.results.push_records import PushRecord

__all__ = ["ChangeReporter"]

LLM_PROGRESS_EVERY = 2.0  # seconds between edits of "Working on it" while the model writes
GATE_IDS_KEPT = 10_000  # gate message ids remembered for adapters that do not send them back

log = logging.getLogger(__name__)


@dataclass
class ChangeReporter:
    adapter: ChatAdapter
    audit: DecisionRecords
    metrics: Metrics = field(default_factory=process_metrics)
    templates: TemplateUses | None = None  # the team's library: which templates a change used
    clock: Callable[[], datetime] = utc_now
    pushes: PushesInFlight = field(
        default_factory=PushesInFlight
    )  # for a stop (bot/runtime/shutdown.py)
    pictures: LabPictures | None = None  # topology pictures at the params gate and after a push
    mask: SecretMask = field(default_factory=SecretMask.random)  # secret values as shown
    on_gates_changed: Callable[[], None] | None = None  # a gate opened or a change ended
    # gate interrupt id -> platform message id, for adapters whose decisions do not carry it
    _gate_message_ids: OrderedDict[str, str] = field(default_factory=OrderedDict)

    async def say(self, thread: ThreadRef, message: Message) -> str:
        """Post `message`; its id. Files the chat would not take are one line after it (and
        the log), never a failure of the message: a gate keeps its buttons without its picture."""
        try:
            return await self.adapter.post(thread, message)
        except FilesNotAttached as exc:
            log.warning("%s: %s", thread.key, exc)
            await self._not_attached(thread, exc.names)
            return exc.message_id

    async def _not_attached(self, thread: ThreadRef, names: tuple[str, ...]) -> None:
        if names == (PICTURE_NAME,):
            text = messages.PICTURE_NOT_ATTACHED
        else:
            text = messages.FILES_NOT_ATTACHED.format(names=", ".join(names))
        await self.adapter.post(thread, Message(text, level="warning"))

    async def tell(self, thread: ThreadRef, actor: Actor, text: str) -> None:
        """A message only `actor` sees, where the platform allows it. An AI agent is no chat
        user: what it is told is said in the thread, for the people it acts for."""
        only = "" if is_agent_id(actor.id) else actor.id
        await self.say(thread, Message(text, ephemeral_to=only, level="warning"))

    async def present(self, thread: ThreadRef, step: Step) -> None:
        """Book the pushes the step made, then post its gate or finish its change."""
        await self._record_pushes(step.change_id, step.pushes)
        if isinstance(step, Gate):
            shown = presenter.present_gate(step, self.mask)
            message_id = await self._say_with_picture(thread, shown, step)
            self._gate_message_ids[step.interrupt_id] = message_id
            while len(self._gate_message_ids) > GATE_IDS_KEPT:
                self._gate_message_ids.popitem(last=False)
        else:
            await self._finish(thread, step)
        if self.on_gates_changed is not None:
            self.on_gates_changed()

    async def answer_click(self, decision: Decision, answer: ClickAnswer) -> Outcome:
        """Show what the click `decision` comes to (bot/decisions/click_answers.py), in one call: a
        refusal told to the clicker, a vote counted, a Modify not understood, an expired gate
        ended, or the gate settled: closed with who decided (or the late clicker told who did),
        before the service resumes it; the click's outcome."""
        thread, actor = decision.thread, decision.actor
        if isinstance(answer, Refused):
            await self.refuse(
                actor,
                thread,
                answer.text,
                gate=answer.gate,
                about=answer.gate_name,
                change_id=answer.change_id,
                interrupt_id=answer.interrupt_id,
            )
        elif isinstance(answer, ModifyNotUnderstood):
            shown = presenter.present_feedback_problem(
                answer.change_id, answer.feedback, answer.problem, self.mask
            )
            await self.say(thread, shown)
        elif isinstance(answer, Voted):
            text = messages.VOTE_RECORDED.format(
                actor=actor.name,
                count=answer.count,
                required=answer.required,
                missing=answer.missing,
            )
            await self.say(thread, Message(text))
        elif isinstance(answer, Expired):
            await self._expired(decision, answer.gate, answer.step)
        else:
            await self._settled(decision, answer)
        return answer.outcome

    async def _settled(self, decision: Decision, resume: Resume) -> None:
        """The gate's buttons swapped for who decided, or the late clicker told who did."""
        if resume.late_notice:
            await self.refuse(decision.actor, decision.thread, resume.late_notice, gate=resume.gate)
        else:
            await self._mark_decided(resume.gate, decision)

    async def _mark_decided(self, gate: PendingGate, decision: Decision) -> None:
        """Swap the gate's buttons for who decided (any replica can: the gate is in storage)."""
        footer = decided_footer(
            gate.gate,
            decision.choice,
            decision.actor.shown,
            stamp(self.clock()),
            self.mask,
            decision.feedback,
        )
        mentions = (decision.actor.mention,) if decision.actor.mention else ()
        await self._close_gate(gate, decision, footer, mentions)

    async def _expired(self, decision: Decision, gate: PendingGate, step: Step) -> None:
        """A click found `gate` past its expiry: the clicker is told (the refusal recorded), the
        gate's buttons are replaced by when it expired (nobody decided it), and `step`, the
        change ended as expired, is shown."""
        at = stamp(datetime.fromisoformat(gate.expires_at))
        told = messages.EXPIRED_GATE.format(at=at)
        await self.refuse(decision.actor, decision.thread, told, gate=gate)
        await self._close_gate(gate, decision, messages.EXPIRED_FOOTER.format(at=at), ())
        await self.present(decision.thread, step)

    async def _close_gate(
        self, gate: PendingGate, decision: Decision, footer: str, mentions: tuple[str, ...]
    ) -> None:
        """The gate message's buttons swapped for `footer` by the adapter, which keeps what the
        gate showed (what was hashed is what stays shown); a gate message not known here (a
        decision that does not name it, posted by another process) gets the footer as a line."""
        message_id = decision.message_id or self._gate_message_ids.pop(gate.interrupt_id, "")
        if not message_id:
            await self.say(decision.thread, Message(footer, mentions=mentions))
            return
        await self.adapter.close_gate(decision.thread, message_id, footer, mentions)

    async def _record_pushes(self, change_id: str, records: tuple[PushRecord, ...]) -> None:
        """Exactly the step's push records, one audit row per device."""
        if not records:
            return
        for record in records:
            self.metrics.push(record["push"]["status"])
        await self.audit.record_pushes(change_id, [push_row(record) for record in records])

    async def _finish(self, thread: ThreadRef, finished: Finished) -> None:
        await self.audit.record_change_event(
            change_id=finished.change_id,
            status=finished.status,
            detail=ending_line(finished, self.mask),
            tokens=finished.tokens,
        )
        if self.templates is not None and finished.templates:
            await self.templates.record_use(finished.change_id, finished.templates, finished.status)
        self.metrics.change_finished(finished.status)
        shown = presenter.present_result(finished, self.mask)
        await self._say_with_picture(thread, shown, finished)

    async def _say_with_picture(self, thread: ThreadRef, message: Message, step: Step) -> str:
        """`message` with the step's picture when it has one; one that cannot be drawn is one
        line after the message."""
        try:
            picture = await self.pictures.of_step(step) if self.pictures is not None else None
        except PictureNotDrawn:
            message_id = await self.say(thread, message)
            await self._not_attached(thread, (PICTURE_NAME,))
            return message_id
        return await self.say(
            thread, replace(message, files=(*message.files, picture)) if picture else message
        )

    def progress(
        self, thread: ThreadRef, change_id: str, working: tuple[str, str] | None = None
    ) -> StepProgress:
        """Push progress as one message, edited as devices finish; times the push. The model's
        progress edits the `working` message (id, text); see _ModelWriting. Each event updates
        the state at once; the edit it returns shows the latest state when it runs (a newer
        one may replace it before it starts: workflow/results/progress_edits.py)."""
        progress: dict[str, PushProgress] = {}
        posted: list[str] = []
        started = time.perf_counter()
        writing = _ModelWriting(self.adapter, thread, working)

        async def show_push() -> None:
            message = presenter.present_progress(change_id, progress)
            if posted:
                await self.adapter.update(thread, posted[0], message)
            else:
                posted.append(await self.say(thread, message))

        def on_progress(event: PushProgress | LLMProgress) -> Awaitable[None]:
            nonlocal started
            if isinstance(event, LLMProgress):
                writing.latest = event
                return writing.show()
            if not progress:
                started = time.perf_counter()
            elif event.stage != "started" and event.done == event.total:
                self.metrics.push_duration(time.perf_counter() - started)
            progress[event.device] = event
            self.pushes.progress(change_id, event)
            return show_push()

        return on_progress

    @contextmanager
    def running(
        self, thread: ThreadRef, gate: PendingGate, choice: Choice
    ) -> Iterator[StepProgress]:
        """The step answering `gate` with `choice` runs now (the service resumes it): its
        progress (the sink yielded) is shown as it comes, and the push it may make is known to
        a stop until its results are booked or it never ran."""
        lines = pushed_on(gate, choice)
        if lines:
            self.pushes.begin(gate.change_id, thread, lines)
        try:
            yield self.progress(thread, gate.change_id)
        finally:
            self.pushes.end(gate.change_id)

    async def refuse(
        self,
        actor: Actor,
        thread: ThreadRef,
        text: str,
        *,
        gate: PendingGate | None = None,
        about: str = "",
        change_id: str = "",
        interrupt_id: str = "",
    ) -> None:
        """Record a refusal, count it, and tell only the person refused. `about`: what was
        refused when it is not a pending gate ("request", or "" for a stale button)."""
        if gate is not None:
            change_id, interrupt_id, about = gate.change_id, gate.interrupt_id, gate.gate
        self.metrics.refusal(about)
        await self.audit.record_refusal(
            change_id=change_id or None,
            interrupt_id=interrupt_id or None,
            gate=about or None,
            actor_id=actor.id,
            actor_name=actor.name,
            platform=thread.platform,
            channel=thread.channel,
            reason=text,
        )
        await self.tell(thread, actor, text)

    async def refuse_if(
        self,
        actor: Actor,
        thread: ThreadRef,
        refusal: str | None,
        *,
        gate: PendingGate | None = None,
        about: str = "",
    ) -> bool:
        """The one refusal path of requests, commands and decisions: a refusal (the sentence
        the authorizer gave) is told to the person and recorded; True when there was one."""
        if refusal:
            await self.refuse(actor, thread, refusal, gate=gate, about=about)
        return bool(refusal)


@dataclass
class _ModelWriting:
    """The model is still writing: the `working` message (id, text) edited with the seconds and
    tokens so far, at most every LLM_PROGRESS_EVERY s; posted at the first event when there is
    none (a resumed step asking the model again)."""

    adapter: ChatAdapter
    thread: ThreadRef
    working: tuple[str, str] | None
    edited: float = -LLM_PROGRESS_EVERY
    latest: LLMProgress = field(default_factory=lambda: LLMProgress(0))  # written so far

    async def show(self) -> None:
        now = time.perf_counter()
        if now - self.edited < LLM_PROGRESS_EVERY:
            return
        self.edited = now
        event = self.latest
        if self.working is None:
            text = messages.MODEL_WRITING
            shown = Message(f"{text} {presenter.llm_progress(event)}")
            self.working = (await self.adapter.post(self.thread, shown), text)
            return
        shown = Message(f"{self.working[1]} {presenter.llm_progress(event)}")
        await self.adapter.update(self.thread, self.working[0], shown)

"""The per-channel read budget: what a channel posted in the last minute, charged only when it
fits; each channel apart; the minute slides (a clock the test moves)."""

from __future__ import annotations

from bot.read_budget import ChannelBudget


def test_a_channel_is_charged_only_within_its_budget_and_the_minute_slides() -> None:
    now = [0.0]
    budget = ChannelBudget(limit=1000, clock=lambda: now[0])
    assert budget.take("C1", 600)
    assert not budget.take("C1", 500)  # would pass the budget: nothing charged
    assert budget.spent("C1") == 600
    assert budget.take("C2", 1000)  # another channel has its own
    now[0] = 30.0
    assert budget.take("C1", 400) and not budget.take("C1", 1)
    now[0] = 60.5  # the first read left the window, the second has not
    assert budget.spent("C1") == 400
    assert budget.take("C1", 600)

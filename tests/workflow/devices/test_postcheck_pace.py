"""How often a post-check reads a device: quickly while a change converges in a second or two,
gently while a slow one (a BGP session) takes a minute."""

from __future__ import annotations

from workflow.devices.postcheck import MAX_PAUSE, CheckJob, round_pause

FIRST = CheckJob.interval  # the default first pause


def rounds_within(seconds: float, read_seconds: float = 0.035) -> int:
    """Rounds of reads a device waits through in `seconds` (each round one read)."""
    waited, rounds = 0.0, 0
    while waited < seconds:
        waited += read_seconds + round_pause(FIRST, waited)
        rounds += 1
    return rounds


def test_a_converging_change_is_seen_within_a_tenth_of_a_second_a_slow_one_is_read_gently() -> None:
    assert round_pause(FIRST, 0.0) <= 0.05 and round_pause(FIRST, 2.0) < 0.1  # fast OSPF hellos
    assert rounds_within(1.0) >= 10
    assert rounds_within(60.0) < 200  # ~700 at a fixed 0.05 s
    assert round_pause(FIRST, 600.0) == MAX_PAUSE

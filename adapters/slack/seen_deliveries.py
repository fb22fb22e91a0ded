"""Delivery keys seen lately, so Slack's retries (X-Slack-Retry-Num) are handled once."""

from __future__ import annotations

from collections import OrderedDict


class RecentKeys:
    """A bounded set in insertion order: the oldest keys are forgotten first.

    Slack retries a delivery three times within minutes, so a few thousand keys cover the
    window. Per process: behind a load balancer a retry may reach another replica, where the
    decision service's first-decision-wins record is what keeps a gate from being decided twice.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self._capacity = capacity
        self._keys: OrderedDict[str, None] = OrderedDict()

    def first_time(self, key: str) -> bool:
        """True the first time `key` is seen (and remember it)."""
        if key in self._keys:
            return False
        self._keys[key] = None
        if len(self._keys) > self._capacity:
            self._keys.popitem(last=False)
        return True

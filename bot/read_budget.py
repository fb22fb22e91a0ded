"""How much read output each channel may have posted in a sliding minute: one person's `show
running-config` on twenty routers is fine, twenty people's at once would flood the channel.

Counted in this process (each replica keeps its own); the check and the charge happen with no
await between them, so concurrent reads in one process cannot pass the budget together."""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

WINDOW_SECONDS = 60.0


@dataclass
class ChannelBudget:
    limit: int = 5_000_000  # LABBOT_READ_CHANNEL_BUDGET: characters a minute per channel
    clock: Callable[[], float] = time.monotonic
    _posted: defaultdict[str, deque[tuple[float, int]]] = field(
        default_factory=lambda: defaultdict(deque)
    )

    def spent(self, channel: str) -> int:
        """Characters posted in `channel` within the last minute."""
        posted = self._posted[channel]
        since = self.clock() - WINDOW_SECONDS
        while posted and posted[0][0] < since:
            posted.popleft()
        return sum(chars for _, chars in posted)

    def take(self, channel: str, chars: int) -> bool:
        """Charge `chars` to `channel` if they fit in its budget; False (nothing charged) if not."""
        if self.spent(channel) + chars > self.limit:
            return False
        self._posted[channel].append((self.clock(), chars))
        return True

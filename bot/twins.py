"""The template's twin per platform (`workflow.ports.ConfigTrial`): the first of the given twins
that has one for the device's platform — a simulated device (labsim: IOS, EOS) or a real FRR
router of its own (frrlab, where this host can run FRR)."""

from __future__ import annotations

from collections.abc import Sequence

from workflow.ports import ConfigTrial, TwinRun


class Twins:
    def __init__(self, *twins: ConfigTrial) -> None:
        self._twins = twins

    async def trial(
        self, device: str, platform: str, running_config: str, lines: Sequence[str]
    ) -> TwinRun | None:
        for twin in self._twins:
            run = await twin.trial(device, platform, running_config, lines)
            if run is not None:
                return run
        return None

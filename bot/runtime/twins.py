"""The template's twin per platform (`workflow.ports.ConfigTrial`): the first of the given twins
that has one for the device's platform — a simulated device (labsim: IOS, EOS) or a real FRR
router of its own (frrlab, where this host can run FRR). The graph and `labbot templates save`
try templates on the same twins (`template_twins`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.settings import Settings
from frrlab.lab_twin import FrrLabTwins
from frrlab.twin import FrrTwin
from labsim.trial import SimTrial
from workflow.phases.lab_twin_run import LabRehearsal
from workflow.ports import ConfigTrial, TwinRun

__all__ = ["template_twins"]


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


def template_twins() -> ConfigTrial:
    """Where a template's lines are tried before anyone relies on it: a simulated device
    (IOS, EOS), else a real FRR router of its own."""
    return Twins(SimTrial(), FrrTwin())


def lab_twins(settings: Settings) -> LabRehearsal | None:
    """Twins of the whole FRR lab before the Execute gate (LABBOT_LAB_TWINS=0: none)."""
    if settings.lab_twins == 0:
        return None
    routers = settings.lab_twin_routers
    return LabRehearsal(FrrLabTwins(), at_once=settings.lab_twins, max_routers=routers)

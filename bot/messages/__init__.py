"""Every text labbot says to people, in one place: one module per area, read through one import
path (`from bot import messages`, then `messages.NAME`).

general    help, the demo, refusals and faults, limits, the LLM's progress
gates      the gates' texts, buttons and block titles; what a click is told
agents     what AI agents are told over MCP, an agent's request in a thread
endings    why a change ended, its result and progress, a push cut short
templates  the template library: listings, saving, versions, pins, diffs, figures
audit      audit tables, one change's record, the HTML report, the chain's head
lab        pictures, the inventory, reads and questions
landing    where a change's lines land: on a copy before the gate, on the device after the push
lab_twin   what the previewed lines did on a twin of the whole lab, or why there was none
labs       the labs file, pods, a channel that is no lab's
people     home, pending steps, `labbot policy check`
postchecks what the post-checks showed on each device
devices    why a device failed
check      `labbot check` (the doctor), serve's checks at start, files the CLI writes
"""

from bot.messages.agents import *  # noqa: F403
from bot.messages.audit import *  # noqa: F403
from bot.messages.check import *  # noqa: F403
from bot.messages.devices import *  # noqa: F403
from bot.messages.endings import *  # noqa: F403
from bot.messages.gates import *  # noqa: F403
from bot.messages.general import *  # noqa: F403
from bot.messages.lab import *  # noqa: F403
from bot.messages.lab_twin import *  # noqa: F403
from bot.messages.labs import *  # noqa: F403
from bot.messages.landing import *  # noqa: F403
from bot.messages.people import *  # noqa: F403
from bot.messages.postchecks import *  # noqa: F403
from bot.messages.templates import *  # noqa: F403

"""The graph's working nodes: gather, propose, check, push, report (the gates: nodes/gates.py).

Each node returns a `Command` naming the next node, so the routing reads top to bottom in each
node rather than in a table of conditional edges. The nodes live by job; `Nodes` puts them
together over their shared collaborators (workflow/nodes/parts.py):

    gather.py   gather, repreview                         read the lab
    plan.py     propose_template, check_template,         propose and check
                propose_params
    params.py   check_params                              previews, twins, the params gate
    push.py     push, report                              push what was approved; the end
"""

from __future__ import annotations

from dataclasses import dataclass

from workflow.nodes.gather import GatherNodes
from workflow.nodes.params import ParamsNodes
from workflow.nodes.plan import PlanNodes
from workflow.nodes.push import PushNodes

__all__ = ["Nodes"]


@dataclass(frozen=True)
class Nodes(GatherNodes, PlanNodes, ParamsNodes, PushNodes):
    """The nodes' collaborators (built by bot/wiring) and the workflow's settings (`options`):
    the fields of `workflow.nodes.parts.NodeParts`."""

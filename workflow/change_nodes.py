"""The graph's working nodes: gather, propose, check, push, report (the gates are in gate_nodes.py).

Each node returns a `Command` naming the next node, so the routing reads top to bottom in each
node rather than in a table of conditional edges. The nodes live by job; `Nodes` puts them
together over their shared collaborators (workflow/node_parts.py):

    gather_nodes   gather, repreview                         read the lab
    plan_nodes     propose_template, check_template,         propose and check
                   propose_params
    params_nodes   check_params                              previews, twins, the params gate
    push_nodes     push, report                              push what was approved; the end
"""

from __future__ import annotations

from dataclasses import dataclass

from workflow.gather_nodes import GatherNodes
from workflow.params_nodes import ParamsNodes
from workflow.plan_nodes import PlanNodes
from workflow.push_nodes import PushNodes


@dataclass(frozen=True)
class Nodes(GatherNodes, PlanNodes, ParamsNodes, PushNodes):
    """The nodes' collaborators (built by bot/wiring) and the workflow's settings (`options`):
    the fields of `workflow.node_parts.NodeParts`."""

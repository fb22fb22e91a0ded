"""The change graph: gather (→ targets gate) → propose/check template → template gate →
propose/check params → params gate → push → post-checks (→ rollback gate → undo) → report.

```
targets_gate ◄─► gather    (more devices than LABBOT_MAX_TARGETS: confirmed before any read)
gather ─► propose_template ─► check_template ─► template_gate ─► propose_params ─► check_params
  ▲           ▲    (errors, ≤ max_attempts)│          │              ▲   (errors)       │
  │           └────────────────────────────┘          │              │◄─────────────────┘
  └──────────── modify (the devices may change) ──────┘              │ modify
                                           push ◄── params_gate ◄──────┘
                                            │
                                       post_check ─► rollback_gate ─► undo ─► END  (checks failed)
                                            │
                                          report ─► END       (cancel / expiry / failure ─► END)
                                            │ a device changed since its preview (not pushed)
                                            └─► repreview ─► check_params (a fresh params gate)
```
"""

from __future__ import annotations

from typing import Any, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from workflow.checkpoints.upgrading_saver import UpgradingSaver
from workflow.nodes.change import Nodes
from workflow.nodes.gates import ReviewGate
from workflow.nodes.postchecks import PostCheckNodes
from workflow.state import ChangeState
from workflow.step_progress import StepContext


class Node(Protocol):
    """A node of the graph: the state in, where to go next (and what to update) out."""

    async def __call__(self, state: ChangeState) -> Command[str]: ...


def build_graph(
    nodes: Nodes, checkpointer: BaseCheckpointSaver[Any]
) -> CompiledStateGraph[ChangeState, StepContext, ChangeState, ChangeState]:
    """The compiled graph; every routing decision is a `Command(goto=...)` from a node, and
    every checkpoint is read upgraded from whichever release kept it (UpgradingSaver)."""
    graph = StateGraph(ChangeState, context_schema=StepContext)

    def add(name: str, node: Node, *destinations: str) -> None:
        graph.add_node(name, node, destinations=destinations)

    add("gather", nodes.gather, "targets_gate", "propose_template")  # Modify: again
    # more devices than LABBOT_MAX_TARGETS: confirmed first, nothing read before
    targets_gate = ReviewGate("targets", "gather", "gather", nodes.clock)
    add("targets_gate", targets_gate, "gather", "targets_gate")
    add("propose_template", nodes.propose_template, "check_template")
    add("check_template", nodes.check_template, "propose_template", "template_gate")
    template_gate = ReviewGate("template", "propose_params", "gather", nodes.clock)
    add("template_gate", template_gate, "propose_params", "gather", "template_gate")
    add("propose_params", nodes.propose_params, "check_params")
    add("check_params", nodes.check_params, "propose_params", "params_gate")
    params_gate = ReviewGate("params", "push", "propose_params", nodes.clock)
    add("params_gate", params_gate, "push", "propose_params", "params_gate")
    add("push", nodes.push, "post_check")
    after = PostCheckNodes(nodes.gateway, nodes.deny_list, nodes.clock, nodes.options)
    add("post_check", after.post_check, "report", "rollback_gate")
    add("rollback_gate", after.rollback_gate, "undo", "rollback_gate")
    add("undo", after.undo)
    add("report", nodes.report, "repreview")
    add("repreview", nodes.repreview, "check_params")
    graph.add_edge(START, "gather")
    return graph.compile(checkpointer=UpgradingSaver(checkpointer))

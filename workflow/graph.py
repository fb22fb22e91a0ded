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

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from workflow.gates import ReviewGate
from workflow.nodes import Nodes
from workflow.postchecks.nodes import PostCheckNodes
from workflow.state import ChangeState


def build_graph(
    nodes: Nodes, checkpointer: BaseCheckpointSaver[Any]
) -> CompiledStateGraph[ChangeState, None, ChangeState, ChangeState]:
    """The compiled graph; every routing decision is a `Command(goto=...)` from a node."""
    graph = StateGraph(ChangeState)
    graph.add_node(  # Modify: again
        "gather", nodes.gather, destinations=("targets_gate", "propose_template")
    )
    graph.add_node(  # more devices than LABBOT_MAX_TARGETS: confirmed first, nothing read before
        "targets_gate",
        ReviewGate("targets", "gather", "gather", nodes.clock),
        destinations=("gather", "targets_gate"),
    )
    graph.add_node("propose_template", nodes.propose_template, destinations=("check_template",))
    graph.add_node(
        "check_template", nodes.check_template, destinations=("propose_template", "template_gate")
    )
    graph.add_node(
        "template_gate",
        ReviewGate("template", "propose_params", "gather", nodes.clock),
        destinations=("propose_params", "gather", "template_gate"),
    )
    graph.add_node("propose_params", nodes.propose_params, destinations=("check_params",))
    graph.add_node(
        "check_params", nodes.check_params, destinations=("propose_params", "params_gate")
    )
    graph.add_node(
        "params_gate",
        ReviewGate("params", "push", "propose_params", nodes.clock),
        destinations=("push", "propose_params", "params_gate"),
    )
    graph.add_node("push", nodes.push, destinations=("post_check",))
    after = PostCheckNodes(
        nodes.gateway, nodes.deny_list, nodes.clock, nodes.options.gate_ttl_seconds
    )
    graph.add_node("post_check", after.post_check, destinations=("report", "rollback_gate"))
    graph.add_node("rollback_gate", after.rollback_gate, destinations=("undo", "rollback_gate"))
    graph.add_node("undo", after.undo)
    graph.add_node("report", nodes.report, destinations=("repreview",))
    graph.add_node("repreview", nodes.repreview, destinations=("check_params",))
    graph.add_edge(START, "gather")
    return graph.compile(checkpointer=checkpointer)

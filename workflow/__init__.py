"""The change workflow: LangGraph graph, planners, rendering, safety and devices.

Pure of chat and of SQL: it receives a checkpointer, a planner and a device gateway.
"""

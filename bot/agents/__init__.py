"""AI agents over MCP: who they are, their bounds, their desk and what they are given."""

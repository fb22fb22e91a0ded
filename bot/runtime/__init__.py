"""Building labbot from settings and running it: wiring, the platforms for `serve`,
health, shutdown, the MCP door's backing."""

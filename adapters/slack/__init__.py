"""labbot in Slack: bolt `AsyncApp` listeners (app.py) over pure translation in (inbound.py) and
out (blocks.py); the `SlackAdapter` (adapter.py) runs in Socket Mode or HTTP mode (transport.py)
behind an ack front, a process of its own (front.py). Nothing is imported here: the front's
process imports only what it needs, never bolt."""

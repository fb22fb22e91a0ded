"""labbot in Slack: bolt `AsyncApp` listeners (app.py) over pure translation in (inbound.py) and
out (blocks.py); the `SlackAdapter` (adapter.py) runs in Socket Mode or HTTP mode (transport.py).
"""

from adapters.slack.adapter import SlackAdapter, slack_adapter, web_client

__all__ = ["SlackAdapter", "slack_adapter", "web_client"]

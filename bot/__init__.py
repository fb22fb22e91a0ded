"""labbot composition root: settings, CLI, wiring, the decision service, presenters."""

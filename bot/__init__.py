"""labbot composition root: settings and ports loose; cli/, runtime/, decisions/, policy/, views/,
topology/, agents/, audit/, check/, commands/ and messages/ by job (docs/architecture.md)."""

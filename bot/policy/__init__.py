"""Who may start a change and decide a gate: pure rules, their facts, the approver
lists, agents' principals, the limits at the door, what waits for whom."""

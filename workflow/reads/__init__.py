"""Read-only questions to the lab: allow-listed show commands run on named devices, no gate.

allowlist  which commands a platform may be asked (an allow-list; anything else is refused)
request    `show … on DEVICES`: the command, the devices (fail closed) and the `raw` keyword
tables     the platform's parsed form of an output as a compact table (FRR JSON, TextFSM)
questions  common questions in plain words mapped to allow-listed commands (no LLM)
"""

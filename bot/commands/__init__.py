"""Chat commands, one module per family: what people type in a thread instead of a request.

parsing    the command word and its arguments (and `audit` filters), or a change request
context    what a handler gets: the request, say/show in its thread, the stores it reads
thread     help, status, cancel, rollback: the thread's own change
pending    pending: the open steps the asker may decide, and their own open changes
audit      audit: who confirmed which change
topology   topology: the lab as a picture
lab        lab: the inventory (platform, kind, address, reachable now) and the picture
templates  templates, save: the template library (lookups shared with the CLI)
reads      show, display, ping, traceroute, run: read-only commands on devices, no gate;
           device commands that are no read (`do reload`) refused
registry   chat_commands: the commands by name (imported by bot.runtime.wiring only)

This package imports none of them, so the command line can take the few it needs (the
template library) without the workflow and the device drivers.
"""

"""Chat commands, one module per family: what people type in a thread instead of a request.

declaration ChatCommand: a command declared once, beside its handler: the words that call
           it (or how its whole text is recognised), its lines in `help` (from bot/messages),
           its handler built from what the wiring gives (CommandKit)
parsing    a command as parsed (its word and arguments), and `audit` filters
context    what a handler gets: the request, say/show in its thread, the stores it reads
thread     status, cancel, rollback, a decision by id: the thread's own change
pending    pending: the open steps the asker may decide, and their own open changes
audit      audit: who confirmed which change
topology   topology: the lab as a picture
lab        lab: the inventory (platform, kind, address, reachable now) and the picture
templates  templates, save: the template library (lookups shared with the CLI)
reads      show, display, ping, traceroute, run: read-only commands on devices, no gate;
           device commands that are no read (`do reload`) refused
registry   the commands, listed in the order `help` shows them: a command or a change request
           (parse_command), the help, the console's command words, the handlers by word
           (chat_commands); and `help` itself

This package imports none of them, so the command line can take the few it needs (the
template library) without the workflow and the device drivers.
"""

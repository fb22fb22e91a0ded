"""What the console itself says (the bot's sentences are in bot/messages/)."""

NOW_YOU_ARE = "(you are now {user})"
NOT_A_SEAT = (
    "({user} may not sit at this console: LABBOT_CONSOLE_USERS lists {seats}; you are still "
    "{current})"
)
NO_SEATS = (
    "(only {current} sits at this console: list who else may in LABBOT_CONSOLE_USERS, "
    "e.g. LABBOT_CONSOLE_USERS=bob,carol)"
)
SHELL_WORD = (
    "(`{word}` is a shell command, not a labbot one: nothing was asked. Type `help` for the "
    "commands, or a change in words, e.g. `add ntp server 10.0.0.1 on R1`)"
)
NOTHING_WAITING = "(nothing is waiting for a decision here)"
INPUT_CLEARED = "(input cleared — Ctrl-C again quits)"
STILL_WORKING = "(still working on the last step — Ctrl-C again quits, leaving it unfinished)"
ASK_MODIFY = "What should change? "
# after a gate's numbered choices: where they can be typed, or (a process that reads no
# keyboard, as `labbot mcp`'s) where people decide instead
TYPE_CHOICE = "(type the number; 2 asks what to change)"
DECIDE_ELSEWHERE = (
    "(nobody types here: people decide in `labbot console` on this database with "
    "`approve CHANGE_ID`, `modify CHANGE_ID: TEXT` or `cancel CHANGE_ID`, the change named "
    "above)"
)

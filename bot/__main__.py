"""`python -m bot` is `labbot`."""

from bot.cli import main

main()

"""`python -m bot` is `labbot`."""

from bot.cli.main import main

main()

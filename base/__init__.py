"""labbot's base: the shared words (vocabulary) and the error tree. Imports nothing of labbot.

Every other package may import `base`; `base` imports only the standard library, so storage
and adapters use labbot's words and errors without reaching into the workflow.
"""

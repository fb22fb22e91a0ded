"""What a change did and why it ended, as data the bot words: endings, push records, rollbacks, the
standard response, progress edits, Modify feedback, which devices a request is for."""

"""A secret mask for tests whose views carry no secret (audit summaries, gates, results)."""

from base.masking import SecretMask

MASK = SecretMask(b"test key")

"""Secret values in what people type (a request, a Modify feedback): one rule, used by every view
that shows the words again and by the LLM's wire (base.masking.SecretMask.said), and by the
workflow, which never reads one as a device name (workflow.results.targets).

The rule: a secret-ish keyword (`community`, `password`, `secret`, `psk`, `md5`, `key` and any
`…-key` such as `pre-shared-key` or `auth-key`), then `:`/`=` or filler words (`to`, `is`,
`string`, an encryption type digit, …), then the value: a quoted string or one word, never a
filler or a connecting word itself (`md5 authentication on R1`, `key chain OSPF`). It is broader
than the configuration rules (base.secret_rules: a sentence has no fixed syntax), so it is never
applied to configuration lines approvers must read exactly.
"""

from __future__ import annotations

import re

__all__ = ["SAID_SECRET", "value_span"]

# Bounded (fillers, quoted length): a long request costs linear time, whatever it repeats.
_FILLER = r"to|is|as|string|value|md5|key|[0-9]"
_NOT_VALUE = rf"{_FILLER}|on|for|in|at|and|with|from|of|the|chain|auth\w*"
SAID_SECRET = re.compile(
    r"(?<![\w‹-])(?:[\w-]*-)?(?:community|password|passwd|passphrase|secret|psk|md5|key)"
    r"(?:-string)?(?![\w-])"
    rf"(?:[\"'”]?\s*[:=]\s*|(?:\s+(?:{_FILLER})(?![\w-])){{0,3}}\s+)"
    rf"(?!(?:{_NOT_VALUE})(?![\w-]))(?![\"'“]?[{{}}‹])"  # `{{ x }}`, an already masked `‹…›`
    r"(?:\"(?P<double>[^\"]{1,200})\"|“(?P<curly>[^”]{1,200})”|'(?P<single>[^']{1,200})'"
    r"|(?P<word>[^\s,;]+))",
    re.IGNORECASE,
)


def value_span(match: re.Match[str]) -> tuple[int, int]:
    """Where the secret value of a SAID_SECRET match is, its quotes left out."""
    return match.span(match.lastgroup or "word")

"""Which lines carry a mask where a secret value should be (never pushed)."""

from __future__ import annotations

import pytest

from workflow.safety.masked_lines import mask_in

CASES = {
    "snmp-server community ******** RO": "********",
    "username netops privilege 15 secret 0 ********": "********",
    "********": "********",
    'set system login user ops authentication encrypted-password "********"': "********",
    'neighbor 10.0.12.2 password "********"': "********",
    "snmp-server community ‹secret:3f9a1c› RO": "‹secret",
    "ntp authentication-key 1 md5 ‹secret sha256:ab12…›": "‹secret",
    "banner motd ^C*******************************^C": None,  # a row of stars, not a mask
    "******** Authorized access only *********": "********",  # a word of exactly eight
    "snmp-server community Lab-Comm-7741 RO": None,
    "description uplink ***": None,
}


@pytest.mark.parametrize(("line", "mask"), CASES.items())
def test_a_mask_in_a_line_is_found(line: str, mask: str | None) -> None:
    assert mask_in(line) == mask

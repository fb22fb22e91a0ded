import pytest

from bot.redact import mask_secrets


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            "username admin privilege 15 secret 5 $1$abc",
            "username admin privilege 15 secret 5 ****",
        ),
        ("enable secret XYZ", "enable secret ****"),
        ("+ snmp-server community public RO", "+ snmp-server community **** RO"),
        ("no snmp-server community old RW", "no snmp-server community **** RW"),
        (" neighbor 10.0.0.2 password s3cret", " neighbor 10.0.0.2 password ****"),
        (" ip ospf message-digest-key 1 md5 k3y", " ip ospf message-digest-key 1 md5 ****"),
        (" ip ospf authentication-key 7 0822", " ip ospf authentication-key 7 ****"),
        ("tacacs-server host 10.0.0.5 key 7 abc", "tacacs-server host 10.0.0.5 key 7 ****"),
        (" key-string 7 0822455D", " key-string 7 ****"),
        (" description password reset desk", " description password reset desk"),
        ("ntp server 10.0.0.1", "ntp server 10.0.0.1"),
    ],
)
def test_secrets_are_masked_and_the_rest_kept(line: str, shown: str) -> None:
    assert mask_secrets(line) == shown

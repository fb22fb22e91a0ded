"""How a secret value is shown: a short keyed hash in its place, the words around it kept."""

from __future__ import annotations

import hashlib

import pytest

from base.masking import TOKEN, SecretMask

MASK = SecretMask(b"test key")
t = MASK.token


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            "username admin privilege 15 secret 5 $1$abc",
            f"username admin privilege 15 secret 5 {t('$1$abc')}",
        ),
        ("enable secret XYZ", f"enable secret {t('XYZ')}"),
        ("+ snmp-server community public RO", f"+ snmp-server community {t('public')} RO"),
        ("no snmp-server community old RW", f"no snmp-server community {t('old')} RW"),
        # the value "secret" is not a keyword: the words around it stay (issue 13)
        ("snmp-server community secret RW", f"snmp-server community {t('secret')} RW"),
        ("snmp-server community password RO", f"snmp-server community {t('password')} RO"),
        (" neighbor 10.0.0.2 password s3cret", f" neighbor 10.0.0.2 password {t('s3cret')}"),
        ("ntp authentication-key 1 md5 Ntp-K 7", f"ntp authentication-key 1 md5 {t('Ntp-K')} 7"),
        (
            "snmp-server host 10.0.0.9 version 2c Host-C",
            f"snmp-server host 10.0.0.9 version 2c {t('Host-C')}",
        ),
        ('  authentication-key "$9$abc";', f'  authentication-key "{t("$9$abc")}";'),
        (" description password reset desk", " description password reset desk"),
        ("snmp-server community {{ community }} RW", "snmp-server community {{ community }} RW"),
    ],
)
def test_secret_values_are_masked_and_the_rest_kept(line: str, shown: str) -> None:
    assert MASK.config(line) == shown
    assert MASK.config(shown) == shown  # masked once, however often shown


def test_the_token_is_a_short_keyed_hash() -> None:
    """Same value, same token (a changed secret shows as a change); another key, another
    token; never the plain hash a dictionary of common passwords would reverse."""
    assert TOKEN.fullmatch(t("cisco"))
    assert t("cisco") == t("cisco") != t("cisco2")
    assert SecretMask(b"other key").token("cisco") != t("cisco")
    assert hashlib.sha256(b"cisco").hexdigest()[:6] not in t("cisco")
    assert SecretMask.derived_from(b"test key") != MASK  # the audit key is not used as is
    assert "test key" not in repr(MASK)


def test_a_diff_shows_a_changed_secret_as_a_change() -> None:
    diff = "-snmp-server community Old-C RO\n+snmp-server community New-C RO"
    shown = MASK.config(diff, "cisco_ios")
    assert (
        shown == f"-snmp-server community {t('Old-C')} RO\n+snmp-server community {t('New-C')} RO"
    )


def test_parameters_mask_secret_values_and_secret_named_parameters() -> None:
    shown = MASK.param("lines", ["username admin password hunter22", "ntp server 10.0.0.1"])
    assert shown == [f"username admin password {t('hunter22')}", "ntp server 10.0.0.1"]
    assert MASK.param("snmp_community", "public") == t("public")
    assert MASK.param("peers", [{"ip": "10.0.0.2", "md5_key": "K1"}]) == [
        {"ip": "10.0.0.2", "md5_key": t("K1")}
    ]
    assert MASK.param("area", 0) == 0


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("set the snmp community to s3cr3t-Comm on R1", "s3cr3t-Comm"),
        ("configure tacacs key Xyz123", "Xyz123"),
        ("username admin secret hunter22", "hunter22"),
        ("apply snmp to R1 community=Lab-Comm read_only=false", "Lab-Comm"),
        ("enable secret 5 $1$abc on R1", "$1$abc"),
        ("ip ospf message-digest-key 1 md5 k3y on R1", "k3y"),
        ("ipsec pre-shared-key Pr3Sh4red on R1,R2", "Pr3Sh4red"),
        ("bgp auth-key: 'two words' on R1", "two words"),
        ("the password is hunter2", "hunter2"),
        ("snmp community string to XYZ on R2", "XYZ"),
        ('{"community": "abc"} on R1', "abc"),
    ],
)
def test_a_secret_value_people_typed_is_masked_and_the_rest_kept(said: str, value: str) -> None:
    shown = MASK.said(said)
    assert shown == said.replace(value, t(value))
    assert MASK.said(shown) == shown  # shown twice, masked once


@pytest.mark.parametrize(
    "said",
    [
        "configure ospf md5 authentication on R1",  # a keyword followed by a word of the sentence
        "set key chain OSPF on R1",
        "param 'community' is required (community string)",
        "password ‹LABBOT_DEVICE_PASSWORD›",  # already scrubbed
        "snmp-server community {{ community }} RO",
        "configure ospf on all routers",
    ],
)
def test_words_that_are_not_secret_values_stay(said: str) -> None:
    assert MASK.said(said) == said


def test_known_values_are_masked_wherever_they_stand() -> None:
    """A model's paraphrase: the value without its keyword; a short one only as a word."""
    text = "The enable secret of R1 is Cl3ar-En, the community pub (pubs stay)."
    shown = MASK.literals(text, ["Cl3ar-En", "pub"])
    assert (
        shown
        == f"The enable secret of R1 is {t('Cl3ar-En')}, the community {t('pub')} (pubs stay)."
    )
    assert (
        MASK.literals("url=x?k=Long-Value-1&y", ["Long-Value-1"])
        == f"url=x?k={t('Long-Value-1')}&y"
    )

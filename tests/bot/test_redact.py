"""Secret values are masked, never the words around them; known credentials are scrubbed."""

import logging

import pytest

from adapters.chat import CodeBlock, Message
from bot.redact import Scrubber, ScrubLogs, mask_param, mask_said, mask_secrets, masked


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            "username admin privilege 15 secret 5 $1$abc",
            f"username admin privilege 15 secret 5 {masked('$1$abc')}",
        ),
        ("enable secret XYZ", f"enable secret {masked('XYZ')}"),
        ("+ snmp-server community public RO", f"+ snmp-server community {masked('public')} RO"),
        ("no snmp-server community old RW", f"no snmp-server community {masked('old')} RW"),
        # the value "secret" is not a keyword: the words around it stay (issue 13)
        ("snmp-server community secret RW", f"snmp-server community {masked('secret')} RW"),
        ("snmp-server community password RO", f"snmp-server community {masked('password')} RO"),
        (" neighbor 10.0.0.2 password s3cret", f" neighbor 10.0.0.2 password {masked('s3cret')}"),
        (
            " ip ospf message-digest-key 1 md5 k3y",
            f" ip ospf message-digest-key 1 md5 {masked('k3y')}",
        ),
        (" ip ospf authentication-key 7 0822", f" ip ospf authentication-key 7 {masked('0822')}"),
        (
            "tacacs-server host 10.0.0.5 key 7 abc",
            f"tacacs-server host 10.0.0.5 key 7 {masked('abc')}",
        ),
        (" key-string 7 0822455D", f" key-string 7 {masked('0822455D')}"),
        (" description password reset desk", " description password reset desk"),
        ("ntp server 10.0.0.1", "ntp server 10.0.0.1"),
        # a template's placeholders are not values; a literal in a template is
        ("snmp-server community {{ community }} RW", "snmp-server community {{ community }} RW"),
        ("snmp-server community hardcoded RW", f"snmp-server community {masked('hardcoded')} RW"),
    ],
)
def test_secret_values_are_masked_and_the_rest_kept(line: str, shown: str) -> None:
    assert mask_secrets(line) == shown


def test_the_mask_is_a_short_hash_of_the_value() -> None:
    assert masked("secret") == "‹secret sha256:2bb8…›"
    assert masked("a") != masked("b")


def test_parameters_mask_secret_values_and_secret_named_parameters() -> None:
    shown = mask_param("lines", ["username admin password hunter22", "ntp server 10.0.0.1"])
    assert shown == [f"username admin password {masked('hunter22')}", "ntp server 10.0.0.1"]
    assert mask_param("snmp_community", "public") == masked("public")
    assert mask_param("area", 0) == 0


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
    shown = mask_said(said)
    assert shown == said.replace(value, masked(value))
    assert mask_said(shown) == shown  # shown twice, masked once


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
    assert mask_said(said) == said


SCRUB = Scrubber.of(
    [
        ("LABBOT_DEVICE_PASSWORD", "Lab-Pass-9931"),
        ("OPENAI_API_KEY", "sk-abcdef123456"),
        ("LABBOT_DEVICE_SECRET", "enable"),
        ("GNS3_PASSWORD", "c1sc0"),
    ]
)


def test_known_credentials_are_scrubbed_wherever_they_appear() -> None:
    assert SCRUB("HTTP 401: bad key sk-abcdef123456") == "HTTP 401: bad key ‹OPENAI_API_KEY›"
    assert SCRUB("url=https://x/?k=sk-abcdef123456&") == "url=https://x/?k=‹OPENAI_API_KEY›&"
    message = Message(
        "login Lab-Pass-9931", blocks=(CodeBlock("x Lab-Pass-9931", title="t"),), footer="f"
    )
    scrubbed = SCRUB.message(message)
    assert "Lab-Pass-9931" not in repr(scrubbed)
    assert scrubbed.blocks[0].text == "x ‹LABBOT_DEVICE_PASSWORD›"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("login failed: password c1sc0", "login failed: password ‹GNS3_PASSWORD›"),
        ("401 {'pw': 'c1sc0'}", "401 {'pw': '‹GNS3_PASSWORD›'}"),
        ("c1sc0", "‹GNS3_PASSWORD›"),
        ("secret=enable.", "secret=‹LABBOT_DEVICE_SECRET›."),
        # part of a longer word stays: the short value is only hidden as a token of its own
        ("c1sc0lab and xc1sc0", "c1sc0lab and xc1sc0"),
        ("enabled, enable_x, reenable", "enabled, enable_x, reenable"),
    ],
)
def test_short_credentials_are_scrubbed_at_token_boundaries(text: str, shown: str) -> None:
    assert SCRUB(text) == shown


def test_a_value_containing_a_shorter_one_is_replaced_whole() -> None:
    scrub = Scrubber.of([("LABBOT_DEVICE_SECRET", "pass"), ("GNS3_PASSWORD", "pass word")])
    assert scrub("x pass word y pass") == "x ‹GNS3_PASSWORD› y ‹LABBOT_DEVICE_SECRET›"


def test_log_lines_and_tracebacks_are_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.redact")
    caplog.handler.addFilter(ScrubLogs(SCRUB))
    try:
        raise RuntimeError("connect with Lab-Pass-9931 failed")
    except RuntimeError:
        logger.exception("device %s said %s", "R1", "sk-abcdef123456")
    assert "Lab-Pass-9931" not in caplog.text and "sk-abcdef123456" not in caplog.text
    assert "‹OPENAI_API_KEY›" in caplog.text and "‹LABBOT_DEVICE_PASSWORD›" in caplog.text

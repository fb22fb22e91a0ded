"""The per-platform secret rule set, table-driven: on each platform, each kind of secret a
device keeps (`line`) has exactly its value (`value`) found, and the words around it are not."""

from __future__ import annotations

import pytest

from base.secret_rules import secret_spans, unquoted

IOS = [  # IOS, IOS-XE (and NX-OS) configuration lines
    ("enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0", "$1$mERr$hx5rVt7rPNoS4wqbXKX7m0"),
    (
        "enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQY",
        "$9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQY",
    ),
    ("enable secret level 15 5 $1$lvl$abc", "$1$lvl$abc"),
    ("enable password 7 0822455D0A16", "0822455D0A16"),
    ("enable password Cl3ar-En", "Cl3ar-En"),
    ("username admin privilege 15 secret 8 $8$dsYGNam3K1SIJO$7nv", "$8$dsYGNam3K1SIJO$7nv"),
    ("username bob password 0 hunter22", "hunter22"),
    ("username carol password 7 02050D480809", "02050D480809"),
    # IOS takes these as the rest of the line, embedded spaces and all
    ("username dan password 0 Hunter Two Three", "Hunter Two Three"),
    ("username erin privilege 15 secret 0 Open Sesame ", "Open Sesame"),
    ("enable password Cl3ar En", "Cl3ar En"),
    (" neighbor 10.0.0.3 password 0 Two Words", "Two Words"),
    ("snmp-server community Pub-Comm-1 RO", "Pub-Comm-1"),
    ("snmp-server community 0 Comm0 RW 10", "Comm0"),
    ("no snmp-server community old-comm RW", "old-comm"),
    ("snmp-server community secret RW", "secret"),  # a keyword as the value
    ("snmp-server host 10.0.0.9 version 2c Host-Comm", "Host-Comm"),
    ("snmp-server host 10.0.0.9 traps version 2c Trap-Comm udp-port 162", "Trap-Comm"),
    ("snmp-server host 10.0.0.9 informs version 2c Inf-Comm", "Inf-Comm"),
    ("snmp-server host 10.0.0.9 Old-Comm", "Old-Comm"),
    ("snmp-server host 10.0.0.9 vrf MGMT version 2c Vrf-Comm", "Vrf-Comm"),
    ("crypto isakmp key Isa-Key-1 address 10.0.0.2", "Isa-Key-1"),
    ("crypto isakmp key 6 Isa-Key-6 address 10.0.0.2", "Isa-Key-6"),
    (" pre-shared-key address 10.0.0.2 key Ring-Key", "Ring-Key"),
    (" pre-shared-key local Local-Psk", "Local-Psk"),
    (" pre-shared-key Ike-Psk", "Ike-Psk"),
    ("ntp authentication-key 1 md5 Ntp-Key-1 7", "Ntp-Key-1"),  # the key, not `1` nor `md5`
    ("ntp authentication-key 2 md5 7 Ntp-Key-7", "Ntp-Key-7"),
    (" ip ospf authentication-key Ospf-Key", "Ospf-Key"),
    (" ip ospf authentication-key 7 0822OSPF", "0822OSPF"),
    (" ip ospf message-digest-key 1 md5 Md5-Key", "Md5-Key"),
    (" ip ospf message-digest-key 1 md5 7 Md5-Key-7", "Md5-Key-7"),
    (" neighbor 10.0.0.2 password Bgp-Pw", "Bgp-Pw"),
    (" neighbor 10.0.0.2 password 7 Bgp-Pw-7", "Bgp-Pw-7"),
    ("tacacs-server key 7 Tac-Key-7", "Tac-Key-7"),
    ("tacacs-server key Tac-Key", "Tac-Key"),
    ("tacacs-server host 10.0.0.5 key Tac-Host-Key", "Tac-Host-Key"),
    ("radius-server host 10.0.0.6 auth-port 1812 acct-port 1813 key Rad-Key", "Rad-Key"),
    (" server-private 10.0.0.7 key 7 Priv-Key", "Priv-Key"),
    (" key 7 Tac-New-7", "Tac-New-7"),  # under `tacacs server NAME`
    (" key Tac-Bare", "Tac-Bare"),
    (" key-string Chain-Key", "Chain-Key"),
    (" key-string 7 0822455D", "0822455D"),
    ("+ snmp-server community Diff-Comm RO", "Diff-Comm"),  # a diff's line
    (" standby 1 authentication Hsrp-Text", "Hsrp-Text"),  # HSRP's default, in clear
    (" standby authentication text Hsrp-Text-2", "Hsrp-Text-2"),
    (" vrrp 10 authentication text Vrrp-Text", "Vrrp-Text"),
    (" glbp 1 authentication text Glbp-Text", "Glbp-Text"),
    (" ip nhrp authentication Nhrp-Key", "Nhrp-Key"),
    ("key config-key password-encrypt Master-Key", "Master-Key"),  # type 6's master key
    (" client 10.0.0.8 server-key 7 Coa-Key", "Coa-Key"),
    ("  authentication mode hmac-sha-256 7 Eigrp-Key", "Eigrp-Key"),
]
EOS = [
    ("username admin privilege 15 role network-admin secret sha512 $6$salt$hash", "$6$salt$hash"),
    ("enable password sha512 $6$en$hash", "$6$en$hash"),
    ("snmp-server community Eos-Comm ro", "Eos-Comm"),
    ("snmp-server host 10.0.0.9 version 2c Eos-Host-Comm", "Eos-Host-Comm"),
    ("ntp authentication-key 1 md5 7 Eos-Ntp", "Eos-Ntp"),
    ("   neighbor 10.0.0.2 password 7 Eos-Bgp", "Eos-Bgp"),
    ("tacacs-server host 10.0.0.5 key 7 Eos-Tac", "Eos-Tac"),
    ("   vrrp 1 peer authentication text Eos-Vrrp", "Eos-Vrrp"),
]
FRR = [
    ("password Frr-Vty", "Frr-Vty"),
    ("enable password Frr-Enable", "Frr-Enable"),
    (" ip ospf authentication-key Frr-Ospf", "Frr-Ospf"),
    (" ip ospf message-digest-key 1 md5 Frr-Md5", "Frr-Md5"),
    (" neighbor 10.0.0.2 password Frr-Bgp", "Frr-Bgp"),
    (" area-password md5 Isis-Area", "Isis-Area"),
    (" domain-password clear Isis-Domain", "Isis-Domain"),
    (" ip rip authentication string Rip-Key", "Rip-Key"),
    (" ipv6 ospf6 authentication keyid 1 hash-algo hmac-sha-256 key Ospf6-Key", "Ospf6-Key"),
]
JUNOS = [
    ('    encrypted-password "$6$junos$hash"; ## SECRET-DATA', "$6$junos$hash"),
    ('    authentication-key "$9$abcDEF"; ## SECRET-DATA', "$9$abcDEF"),
    ('set security ike policy P pre-shared-key ascii-text "$9$psk"', "$9$psk"),
    ('set system radius-server 10.0.0.6 secret "$9$rad"', "$9$rad"),
    ("set snmp community Jun-Comm authorization read-only", "Jun-Comm"),
    ("    community Jun-Comm-2 {", "Jun-Comm-2"),
    # typed in a change's `set` lines, in clear and bare
    ("set protocols bgp group G authentication-key Jun-Bgp", "Jun-Bgp"),
    ("set system tacplus-server 10.0.0.5 secret Jun-Tac", "Jun-Tac"),
    ("set security ike policy P pre-shared-key ascii-text Jun-Psk", "Jun-Psk"),
    ("set protocols ospf area 0 interface ge-0/0/0 authentication simple-password Jun-S", "Jun-S"),
    ("set protocols ospf area 0 interface ge-0/0/0 authentication md5 1 key Jun-Md5", "Jun-Md5"),
    ("set snmp v3 usm local-engine user u authentication-password Jun-Auth", "Jun-Auth"),
]
VRP = [
    (" local-user admin password irreversible-cipher $1a$vrp$", "$1a$vrp$"),
    (" local-user bob password cipher %^%#Vrp-Ci%^%#", "%^%#Vrp-Ci%^%#"),
    (" snmp-agent community read cipher %^%#Vrp-Comm%^%#", "%^%#Vrp-Comm%^%#"),
    (" snmp-agent community read Vrp-Plain", "Vrp-Plain"),
    (" ospf authentication-mode simple plain Vrp-Ospf", "Vrp-Ospf"),
    (" ospf authentication-mode md5 1 plain Vrp-Md5", "Vrp-Md5"),
]
SHOWN = [  # show output carrying a secret
    ("Community name: Show-Comm", "Show-Comm"),
    ('    key 1 -- text "Chain-Shown"', "Chain-Shown"),  # `show key chain`
]
TABLE = [
    *(("cisco_ios", line, value) for line, value in IOS + SHOWN),
    *(("cisco_ios_telnet", line, value) for line, value in IOS[:3]),
    *(("cisco_nxos", line, value) for line, value in IOS[:3]),
    *(("arista_eos", line, value) for line, value in EOS + IOS[8:20]),
    *(("frr", line, value) for line, value in FRR),
    *(("juniper_junos", line, value) for line, value in JUNOS),
    *(("huawei_vrp", line, value) for line, value in VRP),
    *((None, line, value) for line, value in IOS + EOS + FRR + JUNOS + VRP),  # any platform
    # a value that only looks like template code is a secret; a literal before code is one
    ("cisco_ios", "snmp-server community {abc} RO", "{abc}"),
    ("cisco_ios", "snmp-server community Lab-{{ site }} RO", "Lab-"),
    ("cisco_ios", "snmp-server community {# renders to nothing #} Real-C RO", "Real-C"),
    # an alias is a command, not people's words: what it runs is read
    ("cisco_ios", "alias exec sc snmp-server community Alias-C RO", "Alias-C"),
    ("arista_eos", "alias sc snmp-server community Alias-C ro", "Alias-C"),
    ("cisco_ios", "snmp-server community N\0ul-C RO", "N\0ul-C"),  # a NUL cuts no value
]


def secret_values(text: str, platform: str | None = None) -> set[str]:
    lines = text.split("\n")
    return {unquoted(line[s:e]) for line in lines for s, e in secret_spans(line, platform)}


@pytest.mark.parametrize(("platform", "line", "value"), TABLE)
def test_each_secret_is_found_and_only_its_value(
    platform: str | None, line: str, value: str
) -> None:
    spans = secret_spans(line, platform)
    assert [line[start:end].strip('"') for start, end in spans] == [value]


@pytest.mark.parametrize("platform", ["cisco_ios", "arista_eos", "frr"])
def test_snmpv3_auth_and_priv_keys_are_both_found(platform: str) -> None:
    line = "snmp-server user u1 g1 v3 auth sha Auth-Key priv aes 128 Priv-Key"
    assert secret_values(line, platform) == {"Auth-Key", "Priv-Key"}


def test_both_values_typed_in_one_junos_set_line_are_found() -> None:
    line = (
        "set snmp v3 usm local-engine user u authentication-sha authentication-password Jun-Auth "
        "privacy-aes128 privacy-password Jun-Priv"
    )
    assert secret_values(line, "juniper_junos") == {"Jun-Auth", "Jun-Priv"}
    assert secret_values(line) == {"Jun-Auth", "Jun-Priv"}  # any platform


def test_a_junos_key_chain_shows_its_key_id_and_masks_its_secret() -> None:
    line = "set security authentication-key-chains key-chain KC key 0 secret Jun-Kc start-time now"
    assert secret_values(line, "juniper_junos") == {"Jun-Kc"}


NOT_SECRETS = [
    ("cisco_ios", " description password reset desk"),
    ("cisco_ios", "service password-encryption"),
    ("cisco_ios", "ntp server 10.0.0.1"),
    ("cisco_ios", " key chain OSPF"),
    ("cisco_ios", " key 1"),  # a key chain's key id
    ("cisco_ios", "snmp-server community {{ community }} RW"),  # a template's placeholder
    # a variable named like a keyword, inside template code, is no keyword
    (None, "snmp-server community {{ community }} {{ 'RO' if read_only else 'RW' }}"),
    (None, "{% if community is defined %}snmp-server community {{ community }}{% endif %}"),
    ("cisco_ios", " neighbor {{ peer }} password {{ bgp_password }}"),
    ("cisco_ios", "snmp-server community ‹secret:3f9a1c› RW"),  # already masked
    ("cisco_ios", "snmp-server community *"),  # a template's section
    ("cisco_ios", "snmp-server location lab rack 4"),
    ("cisco_ios", " ip ospf message-digest-key"),
    ("cisco_ios", " ip ospf authentication message-digest"),
    ("cisco_ios", " standby 1 authentication md5 key-chain HSRP"),
    ("cisco_ios", "aaa authentication login default local"),
    ("frr", "router ospf"),
    ("frr", " set community 65000:100"),  # a BGP community is no secret
    ("juniper_junos", "set policy-options community C members 65000:1"),
    ("arista_eos", "ip routing"),
    (None, "Ask for a change in plain words, for example:"),
]


@pytest.mark.parametrize(("platform", "line"), NOT_SECRETS)
def test_lines_without_a_secret_have_none(platform: str, line: str) -> None:
    assert secret_spans(line, platform) == []


def test_a_platform_uses_its_own_rules() -> None:
    """Another vendor's syntax is no secret on a platform; unknown, every family's rules hold."""
    vrp, junos = " snmp-agent community read Vrp-C", "set snmp community Jun-C"
    assert secret_values(vrp, "cisco_ios") == set()
    assert secret_values(vrp, "huawei_vrp") == secret_values(vrp) == {"Vrp-C"}
    assert secret_values(junos, "frr") == set()
    assert secret_values(junos, "juniper_junos") == secret_values(junos) == {"Jun-C"}


def test_every_value_of_a_text_is_found() -> None:
    config = "hostname R1\nenable secret 5 $1$a$b\n!\nsnmp-server community C-1 RO\n"
    assert secret_values(config, "cisco_ios") == {"$1$a$b", "C-1"}

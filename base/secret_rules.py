"""Where the secret values are in device configuration and show output, per platform family:
the one rule set behind every view (bot) and every LLM request (workflow.llm).

Each rule is a regular expression whose `value` group is the secret; the words around it
(`snmp-server community`, `md5`, `RO`) are not. Covered: type 0/5/7/8/9 passwords and secrets
(`enable secret`, `username … secret|password`: to the line's end where IOS reads it so), EOS
`secret sha512 …`, SNMP communities (`snmp-server community X`, `snmp-server host … [version
2c] X`) and SNMPv3 auth/priv keys,
ISAKMP/IKE keys, NTP, OSPF (v3's too), BGP, TACACS+ and RADIUS keys, key-chain strings (in
`show key chain` too), HSRP/VRRP/GLBP keys in clear, NHRP keys, IOS's type-6 master key, named
EIGRP and RIP keys, FRR `password` and `enable password`, IS-IS area/domain passwords, Junos
`$9$…`, `encrypted-password`, SNMP communities and the keys a `set` line types bare, Huawei VRP
`cipher`/`irreversible-cipher`/`plain` values.

netutils.config.clean.sanitize_config applies filters it is given (it ships two private
examples), and replaces a line's value by a fixed word; labbot needs the value's span to show
a keyed hash of it, so the rules are written here, one table per family.
"""

from __future__ import annotations

import re

_WORD = r"(?P<value>\"[^\"\n]*\"|\S+)"  # a quoted value (Junos, VRP) or one word
# a value that runs to the line's end: IOS takes `username … password`, `enable password` and a
# BGP neighbor's password as the rest of the line, embedded spaces and all
_LINE_VALUE = r"(?P<value>\"[^\"\n]*\"|[^\s\"](?:[^\n]*\S)?)"
_TYPE = r"(?:\s+[0-9])?"  # an encryption type: 0 (clear), 5, 7, 8, 9
# words between a secret keyword and its value: a type, a hash name, a level, a VRP mode
_QUALIFIERS = (
    r"(?:\s+(?:level\s+\d+|[0-9]|sha512|sha256|md5|hmac-md5|clear|encrypted|hashed|simple"
    r"|plain|cipher|irreversible-cipher)(?![\w-]))*"
)


def _rules(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern, re.IGNORECASE) for pattern in patterns)


# IOS, IOS-XE, NX-OS, EOS and FRR write these the same way.
COMMON = _rules(
    rf"(?<![\w-])(?:password|secret){_QUALIFIERS}\s+{_WORD}",
    r"^[-+]?\s*(?:no\s+)?(?:username\s+\S+(?:\s+\S+)*?\s+|enable\s+|neighbor\s+\S+\s+)?"
    rf"(?:password|secret){_QUALIFIERS}\s+{_LINE_VALUE}",
    rf"\bsnmp-server\s+community{_TYPE}\s+{_WORD}",
    # snmp-server host H [vrf V] [traps|informs] [version 1|2c|3 LEVEL] COMMUNITY
    r"\bsnmp-server\s+host\s+\S+(?:\s+vrf\s+\S+)?(?:\s+(?:traps|informs))?"
    rf"(?:\s+version\s+(?:1|2c|3\s+\S+))?\s+(?!version\s){_WORD}",
    rf"\bsnmp-server\s+user\s.*?\bauth\s+(?:md5|sha\S*)(?:\s+encrypted)?\s+{_WORD}",
    r"\bsnmp-server\s+user\s.*?\bpriv\s+(?:des\S*|3des|aes\S*)(?:\s+(?:128|192|256))?"
    rf"(?:\s+encrypted)?\s+{_WORD}",
    rf"\bcrypto\s+isakmp\s+key{_TYPE}\s+{_WORD}",
    r"\bpre-shared-key(?:\s+(?:local|remote|ascii-text|hex))?"
    rf"{_TYPE}\s+(?!(?:address|local|remote|ascii-text|hex)\s){_WORD}",
    rf"\bpre-shared-key\s+address\s+\S+(?:\s+\S+)?\s+key{_TYPE}\s+{_WORD}",
    # ntp authentication-key 1 md5 KEY [7]: the key, never the key number or `md5`
    rf"\bntp\s+authentication-key\s+\d+\s+\S+{_TYPE}\s+{_WORD}",
    rf"(?<![\w-])(?<!ntp )(?:key-string|authentication-key){_TYPE}\s+{_WORD}",
    rf"\bmessage-digest-key\s+\d+\s+md5{_TYPE}\s+{_WORD}",
    rf"\b(?:tacacs-server|radius-server|server-private)\s(?:.*\s)?key{_TYPE}\s+{_WORD}",
    rf"(?<![\w-])key\s+[0-9]\s+(?!--\s){_WORD}",  # `key 7 …` under `tacacs server`, `radius server`
    # a bare `key VALUE` line (`tacacs server` sub-mode); key-chain ids (`key 1`) are numbers
    r"^[-+]?\s+key\s+(?P<value>(?!\d+\s*$)(?!chain\s)\S+)\s*$",
    rf"\b(?:area|domain)-password(?:\s+(?:clear|md5))?\s+{_WORD}",
    rf"\bkey\s+\d+\s+--\s+text(?:\s+\(encrypted\))?\s+{_WORD}",  # `show key chain`
    # HSRP, VRRP, GLBP in clear text: `standby 1 authentication [text] KEY`, EOS `vrrp 1 peer
    # authentication text KEY` (their md5 keys are key-strings, above)
    r"\b(?:standby|vrrp|glbp)(?:\s+\d+)?(?:\s+peer)?\s+authentication(?:\s+text)?"
    rf"{_TYPE}\s+(?!(?:md5|ietf-md5|text|key-chain|key-string)(?:\s|$)){_WORD}",
    rf"\bip\s+nhrp\s+authentication{_TYPE}\s+{_WORD}",
    rf"\bkey\s+config-key\s+password-encrypt\s+{_WORD}",  # the master key of type 6
    rf"\bserver-key{_TYPE}\s+{_WORD}",  # `aaa pod server`, RADIUS dynamic-author clients
    rf"\bauthentication\s+mode\s+hmac-sha-256{_TYPE}\s+{_WORD}",  # named EIGRP
    rf"\bip\s+rip\s+authentication\s+string\s+{_WORD}",  # FRR ripd, IOS-XR
    rf"\bhash-algo\s+\S+\s+key\s+{_WORD}",  # FRR `ipv6 ospf6 authentication keyid 1 hash-algo …`
    rf"\bCommunity\s+name:\s*{_WORD}",  # `show snmp community`
)
# Junos `set` lines: a keyword and the value typed bare after it. The rule is anchored at the
# line's `set` (prose saying "the secret is" is no set line), so it finds one value a match: a
# rule each for the first value of a line and the second (an SNMPv3 user's authentication and
# privacy passwords; a key chain's `key 0 secret X`, whose `0` is the key's id, not its value)
_SET_KEYWORD = (
    r"(?<![\w-])(?:encrypted-password|authentication-key|ascii-text|hexadecimal|secret"
    r"|simple-password|authentication-password|privacy-password|key)\s+"
)
_SET_VALUE = r"[^\s;{\"]+"
_SET_LINE_VALUES = 2


def _set_line(before: int) -> str:
    """The rule for the value after `before` others in a `set` line."""
    skipped = rf"(?:.*?{_SET_KEYWORD}{_SET_VALUE}\s)" + f"{{{before}}}"
    return rf"^\s*set\s{skipped}.*?{_SET_KEYWORD}(?P<value>(?!\d+\s+secret\s){_SET_VALUE})"


JUNOS = _rules(  # Junos quotes every secret it keeps
    r"(?P<value>\$9\$[^\s\";]+)",
    r"\b(?:encrypted-password|authentication-key|ascii-text|secret)\s+(?P<value>\"[^\"\n]*\")",
    # a value typed bare in a `set` line (a change's preview): Junos shows it quoted, encrypted
    *(_set_line(before) for before in range(_SET_LINE_VALUES)),
    r"\bsnmp\s+community\s+(?P<value>\"[^\"\n]*\"|[^\s;{]+)",
    r"(?<![\w-])community\s+(?P<value>\"[^\"\n]*\"|[^\s;{]+)\s*(?:\{|authorization\b)",
)
VRP = _rules(
    rf"\b(?:irreversible-cipher|cipher)\s+{_WORD}",
    rf"\b(?:simple|md5|hmac-sha256|hmac-md5)(?:\s+\d+)?\s+plain\s+{_WORD}",
    rf"\bsnmp-agent\s+community\s+(?:read|write)\s+(?!cipher\s){_WORD}",
)

RULES: dict[str, tuple[re.Pattern[str], ...]] = {
    "cisco_ios": COMMON,
    "cisco_xe": COMMON,
    "cisco_nxos": COMMON,
    "arista_eos": COMMON,
    "frr": COMMON,
    "juniper_junos": JUNOS,
    "huawei_vrp": COMMON + VRP,
}
ANY_PLATFORM = COMMON + JUNOS + VRP  # where the text's platform is not known (LLM, chat)

# a word every rule above needs (lower case): a line without one is not searched (most lines of
# a config); found by substring searches, ~10x quicker than one case-blind pattern
KEYWORDS = (
    "password",
    "secret",
    "communit",
    "key",
    "cipher",
    "plain",
    "snmp",
    "$9$",
    "authentication",
)
# a template's code on one line: a placeholder, a statement or a comment (Jinja's delimiters)
_TEMPLATE_CODE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}")
CODE = "\0"  # template code as the rules read it: no device or person writes a NUL
# a value that is no secret: one already masked, or template code opened on this line and
# closed on a later one
_NOT_A_VALUE = ("‹", "{{", "{%", "{#")
# people's words, where "password reset desk" is no password (an alias is a command: read)
_FREE_TEXT = re.compile(r"^[-+ ]*\s*(?:description|remark)\b", re.IGNORECASE)
_FAMILY_SUFFIXES = ("_telnet", "_ssh", "_serial")


def rules_for(platform: str | None) -> tuple[re.Pattern[str], ...]:
    """The rules of a platform (`cisco_ios_telnet` is `cisco_ios`); every family's when the
    platform is not given or not known: a view masks too much rather than too little."""
    if platform is None:
        return ANY_PLATFORM
    for suffix in _FAMILY_SUFFIXES:
        platform = platform.removesuffix(suffix)
    return RULES.get(platform, ANY_PLATFORM)


def keyword_lines(text: str) -> set[int]:
    """Which lines of `text` (split at newlines, counted from 0) hold a keyword of the rules,
    in any case: only these may hold a secret. Found by substring searches of the whole text."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: positions shift
        return set(range(text.count("\n") + 1))
    lines, line, last = set(), 0, 0
    for at in sorted(at for word in KEYWORDS for at in _places(lowered, word)):
        line, last = line + lowered.count("\n", last, at), at
        lines.add(line)
    return lines


def _places(text: str, word: str) -> list[int]:
    places, at = [], text.find(word)
    while at >= 0:
        places.append(at)
        at = text.find(word, at + 1)
    return places


def secret_spans(line: str, platform: str | None = None) -> list[tuple[int, int]]:
    """Where the secret values of one line are, left to right, never overlapping. A template's
    placeholder or statement (`{{ community }}`, `{% if … %}`) is template code: no keyword in
    it counts and no value is in it (a literal before one still is), and a comment is read as
    the nothing it renders to; a section's glob (`snmp-server community *`) or a value already
    masked (`‹…›`) is not one either."""
    lowered = line.lower()
    if not any(word in lowered for word in KEYWORDS) or _FREE_TEXT.match(line):
        return []  # no keyword, or people's words: no secret
    code = "{" in line and CODE not in line  # a NUL of the text's own is never cut at
    read = _TEMPLATE_CODE.sub(_blank, line) if code else line
    found = sorted(  # left to right; of two values from one place, the longer
        (
            (_literal(read, match.span("value")) if code else match.span("value"), match.start())
            for rule in rules_for(platform)
            for match in rule.finditer(read)
        ),
        key=lambda value: (value[0][0], -value[0][1], value[1]),
    )
    spans: list[tuple[int, int]] = []
    for (start, end), keyword in found:
        value = line[start:end].strip("\"'")
        if not value.strip("*") or value.startswith(_NOT_A_VALUE):  # a glob, a placeholder
            continue
        # a keyword inside a value found before is part of that value (`community secret RW`)
        if not any(at <= keyword < to for at, to in spans) and (not spans or start >= spans[-1][1]):
            spans.append((start, end))
    return spans


def _blank(code: re.Match[str]) -> str:
    """Template code as the rules read it, the same length: a comment is spaces (it renders to
    nothing), a placeholder or statement one word of CODE that no rule takes for a keyword."""
    return (" " if code.group().startswith("{#") else CODE) * len(code.group())


def _literal(read: str, value: tuple[int, int]) -> tuple[int, int]:
    """The value's span up to the template code in it (`Comm{{ n }}`: `Comm`); empty when the
    value starts with template code."""
    start, end = value
    code = read.find(CODE, start, end)
    return (start, end) if code < 0 else (start, code)


def unquoted(value: str) -> str:
    """A quoted value (Junos, VRP) without its quotes: they are the device's, not the secret's."""
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value

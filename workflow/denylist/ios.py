"""Cisco IOS rules (IOS, IOS-XE, IOS-XR, NX-OS), also the base of the EOS and FRR policies,
whose CLIs share these commands. Exec commands count behind the `do` prefix too."""

from __future__ import annotations

from workflow.denylist.rules import Rule, family_rules

_ACCESS = "changes who can log in or how (accounts, AAA, passwords)"
_SHELL = "runs a shell or script on the device"
_LOG_HOST = "sends the device's logs to another host"
_FLOW = "exports traffic records (NetFlow, IPFIX, sFlow) to another host"
_SPAN = "copies the device's traffic to a port or another host (SPAN, RSPAN, ERSPAN, capture)"
_GUARD = "removes an access list (it may guard the vty lines, SNMP or management access)"
# `arp WORD` is a static entry unless WORD is one of these keywords (interface and global)
_ARP_WORDS = "timeout|arpa|probe|snap|frame-relay|log|entries|incomplete|packet-priority|learn"
_COPY = "copies configuration or files (only `copy running-config startup-config` saves)"
_HANDLER = "runs commands when an event fires or on a schedule (EEM, kron)"
# `logging WORD` sends logs to host WORD unless WORD is one of these keywords (IOS and EOS; FRR's
# `log` abbreviates `logging`, so its keywords are here too)
_LOGGING_WORDS = (
    "commands|error-category|error-details|immediate-mode|record-priority|stdout|syslog|"
    "timestamp|unique-id|with-category|"
    "alarm|buffered|buginf|cns-events|console|count|delimiter|discriminator|dmvpn|esm|event|"
    "exception|facility|file|filter|format|history|level|message-counter|monitor|on|origin-id|"
    "persistent|policy|qos|queue-limit|rate-limit|relogging-interval|reload|repeat-messages|"
    "server-arp|smartlog|snmp-trap|source-interface|synchronous|trap|userinfo|vrf"
)

EXEC = family_rules(
    "exec",
    (
        ("reload", "rel[oad]", "reloads the device"),
        ("write-erase", "wr[ite] er[ase]", "erases the startup configuration"),
        ("erase", "er[ase]", "erases a file system or the startup configuration"),
        ("delete", "de[lete]", "deletes files from the device"),
        ("format", "fo[rmat]", "formats a file system"),
        ("boot", "bo[ot]", "changes what the device boots"),
        ("boot", "no bo[ot]", "changes what the device boots"),
        ("boot", "config-r[egister]", "changes the boot behaviour (can skip the startup config)"),
        ("boot", "li[cense] bo[ot]", "changes the licence the device boots with"),
        ("crypto-zeroize", "cr[ypto] k[ey] z[eroize]", "destroys the device's crypto keys"),
        ("debug", "de[bug]", "debugging can overload the device"),
        ("squeeze", "sq[ueeze]", "permanently removes deleted files"),
        ("squeeze", "fs[ck]", "checks and repairs a file system"),
        ("factory-reset", "fa[ctory-reset]", "resets the device to factory defaults"),
        ("crash", "te[st]", "test commands can crash or reload the device"),
        ("crash", "hw[-module]", "resets or reloads hardware modules"),
        ("switchover", "red[undancy] f[orce-switchover]", "reloads the active supervisor"),
        ("switchover", "red[undancy] rel[oad]", "reloads a supervisor or the shelf"),
        ("install", "ins[tall]", "installs or activates software"),
        ("download-sw", "ar[chive] d[ownload-sw]", "installs new software"),
        ("event-run", "ev[ent] m[anager] r[un]", "runs an EEM applet"),
        ("long-exec", "pi[ng]", "an exec command that can hold the session (ping, traceroute)"),
        ("long-exec", "trac[eroute]", "an exec command that can hold the session"),
    ),
) + family_rules(
    "exec",
    (
        ("configure", "co[nfigure]", "enters or replaces configuration inside a template"),
        ("end", "end$", "leaves configuration mode: the next lines would run as exec commands"),
    ),
    allowable=False,
)
SHELL = family_rules(
    "shell",
    (
        ("shell", "tc[lsh]", _SHELL),
        ("shell", "gu[estshell]", _SHELL),
        ("shell", "ru[n]", _SHELL),
        ("shell", "ba[sh]", _SHELL),
        ("shell", "start-s[hell]", _SHELL),
        ("tftp-server", "~tftp-s[erver]", "serves the device's files over TFTP to anyone"),
        ("file-prompt", "~fil[e] pr[ompt]", "lets file copies and deletions run unconfirmed"),
        ("banner-file", "ban[ner] <any> f[ile]", "reads a file of the device into a banner"),
        ("files", "mk[dir]", "changes the device's file systems"),
        ("files", "rmd[ir]", "changes the device's file systems"),
        ("files", "ren[ame]", "changes the device's file systems"),
    ),
)
MANAGEMENT = family_rules(
    "management",
    (
        ("enable", "~en[able]", "sets the enable password (a backdoor or a lock-out)"),
        ("users", "~us[ername]", "adds, changes or removes a login account"),
        ("aaa", "~aaa", _ACCESS),
        ("aaa", "~tac[acs-server]", _ACCESS),
        ("aaa", "~tacacs", _ACCESS),
        ("aaa", "~rad[ius-server]", _ACCESS),
        ("aaa", "~radius", _ACCESS),
        ("privilege", "~pri[vilege]", "changes which commands a privilege level may run"),
        ("ssh", "~ip ssh", "changes SSH access to the device"),
        ("ssh", "~ip scp", "changes file copies over SSH to the device"),
        ("http-auth", "~ip http au[thentication]", "changes who may log in to web management"),
        ("http-auth", "~ip http acc[ess-class]", "changes who may reach web management"),
        ("http-auth", "~ip http sec[ure-server]", "changes HTTPS management access"),
        ("snmp-write", "snmp-s[erver] c[ommunity] <any> ... rw", "gives SNMP write access"),
        ("snmp-v3", "~snmp-s[erver] u[ser]", "adds or changes an SNMPv3 user"),
        ("snmp-v3", "~snmp-s[erver] g[roup]", "changes what SNMPv3 users may read and write"),
        ("hidden-commands", "~ser[vice] int[ernal]", "enables hidden commands"),
        ("password-recovery", "~ser[vice] pas[sword-recovery]", "changes password recovery"),
        ("rcmd", "~ip rc[md]", "opens rsh/rcp logins to the device (a remote shell)"),
        ("login-block", "~logi[n] b[lock-for]", "locks every login out after failed attempts"),
        ("login-block", "~logi[n] q[uiet-mode]", "locks every login out after failed attempts"),
        ("ssh-keys", "~cr[ypto] k[ey] g[enerate]", "replaces the SSH host key clients trust"),
        ("ssh-keys", "~cr[ypto] k[ey] im[port]", "replaces the SSH host key clients trust"),
        ("clear-passwords", "no ser[vice] password-e[ncryption]", "shows passwords in clear"),
        ("acl-removal", "no acc[ess-list]", _GUARD),
        ("acl-removal", "no ip acc[ess-list]", _GUARD),
        ("acl-removal", "no ipv6 acc[ess-list]", _GUARD),
        ("mgmt-interface", "def[ault] in[terface] <mgmt>", "resets the management interface"),
        ("mgmt-interface", "no in[terface] <mgmt>", "removes the management interface"),
    ),
)
KILL_SWITCH = family_rules(
    "kill-switch",
    (
        ("routing-off", "no ip rou[ting]", "turns IPv4 routing off"),
        ("routing-off", "no ipv6 unicast-r[outing]", "turns IPv6 routing off"),
        ("routing-off", "no ipv6 rou[ting]", "turns IPv6 routing off"),
        ("routing-off", "no ip forw[arding]", "turns IPv4 forwarding off"),
        ("routing-off", "no ipv6 forw[arding]", "turns IPv6 forwarding off"),
        ("routing-process", "no ro[uter]", "removes a whole routing process"),
        (
            "copp",
            "~control-[plane]",
            "changes what reaches the device's CPU (control-plane policing)",
        ),
        ("copp", "~sys[tem] control-[plane]", "changes what reaches the device's CPU (CPU ACLs)"),
        ("clear-logging", "cl[ear] log[ging]", "erases the device's logs"),
        ("clear", "cl[ear]", "resets sessions, tables or counters (BGP and OSPF sessions drop)"),
        ("logging-off", "no lo[gging]", "turns logging off or removes where logs go"),
        ("static-arp", f"ar[p] <except:{_ARP_WORDS}>", "a static ARP entry takes over a neighbour"),
    ),
)
EXFILTRATION = family_rules(
    "exfiltration",
    (
        ("logging-host", "lo[gging] h[ost]", _LOG_HOST),
        ("logging-host", "lo[gging] vrf <any> h[ost]", _LOG_HOST),
        ("logging-host", f"lo[gging] <except:{_LOGGING_WORDS}>", _LOG_HOST),
        ("snmp-host", "snmp-s[erver] h[ost]", "sends SNMP traps or informs to another host"),
        ("flow-export", "fl[ow] exp[orter]", _FLOW),
        ("flow-export", "ip flow-exp[ort]", _FLOW),
        ("flow-export", "sf[low]", _FLOW),
        ("span", "mon[itor] s[ession]", _SPAN),
        ("span", "mon[itor] c[apture]", _SPAN),
        ("tap", "tap", "sends a copy of traffic to tap or tool ports"),
        ("tap", "sw[itchport] m[ode] tap", "sends a copy of traffic to tap or tool ports"),
        ("tap", "sw[itchport] m[ode] too[l]", "sends a copy of traffic to tap or tool ports"),
        ("tap", "sw[itchport] tap", "sends a copy of traffic to tap or tool ports"),
        ("tap", "sw[itchport] too[l]", "sends a copy of traffic to tap or tool ports"),
        ("copy", "cop[y] <src>", _COPY),
        ("copy", "cop[y] <any> <dst>", _COPY),
        ("copy", "wr[ite] n[etwork]", "copies the configuration to another host"),
        ("archive", "ar[chive]", "keeps configuration copies where its path says (other hosts)"),
        ("event-handler", "kr[on]", _HANDLER),
        ("event-handler", "ev[ent] m[anager]", _HANDLER),
        ("outbound-session", "tel[net]", "opens a session from the device to another host"),
        ("outbound-session", "ssh", "opens a session from the device to another host"),
        ("outbound-session", "conn[ect]", "opens a session from the device to another host"),
    ),
)
# Specific rules before general ones: the first rule a line matches names it.
RULES: tuple[Rule, ...] = EXEC + SHELL + MANAGEMENT + KILL_SWITCH + EXFILTRATION

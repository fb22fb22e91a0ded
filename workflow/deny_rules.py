"""The deny-list's rule tables, per vendor family (the matching engine is workflow/safety.py).

Rule syntax: words abbreviated the way vendor manuals do (``wr[ite] er[ase]``: the head is the
shortest accepted abbreviation, the bracketed tail optional); ``$`` at the end means the whole
line; a leading ``~`` means the rule also holds under ``no``/``default``/``undo``
(``~us[ername]`` refuses ``no username admin`` too). Placeholders: ``<mgmt>`` a management
interface name, ``<src>`` any copy source but the running config, ``<any>`` any one word,
``<remote>`` a remote file-transfer URL or scheme (tftp, ftp, scp, sftp, rcp, http, https).

Section rules hold only inside a section: a management interface (``interface Management1``,
``interface Management 1``, ``mgmt0``, ``fxp0``, …) and a terminal line (``line vty``, ``line con``,
``line aux``; VRP ``user-interface``). ``shutdown`` under Gi0/1 is ordinary; under Management1 it
cuts the device off.
"""

from __future__ import annotations

_ACCESS = "changes who can log in or how (accounts, AAA, passwords)"
_SHELL = "runs a shell or script on the device"

IOS_RULES = (
    ("rel[oad]", "reloads the device"),
    ("wr[ite] er[ase]", "erases the startup configuration"),
    ("er[ase]", "erases a file system or the startup configuration"),
    ("de[lete]", "deletes files from the device"),
    ("fo[rmat]", "formats a file system"),
    ("bo[ot]", "changes what the device boots"),
    ("no bo[ot]", "changes what the device boots"),
    ("config-r[egister]", "changes the boot behaviour (can skip the startup configuration)"),
    ("cr[ypto] k[ey] z[eroize]", "destroys the device's crypto keys"),
    ("de[bug]", "debugging can overload the device"),
    ("co[nfigure] r[eplace]", "replaces the whole running configuration"),
    ("sq[ueeze]", "permanently removes deleted files"),
    ("fs[ck]", "checks and repairs a file system"),
    ("fa[ctory-reset]", "resets the device to factory defaults"),
    ("tc[lsh]", _SHELL),
    ("gu[estshell]", _SHELL),
    ("end$", "leaves configuration mode, so the following lines would run as exec commands"),
    ("cop[y] <src> r[unning-config]", "loads configuration nobody reviewed"),
    ("cop[y] <src> s[tartup-config]", "overwrites the startup configuration"),
    ("cop[y] <remote>", "copies files to or from another host"),
    ("cop[y] <any> <remote>", "exports the configuration or files to another host"),
    ("ar[chive] d[ownload-sw]", "installs new software"),
    ("li[cense] bo[ot]", "changes the licence the device boots with"),
    ("ru[n] ba[sh]", _SHELL),
    ("~en[able]", "sets the enable password (a backdoor or a lock-out)"),
    ("~us[ername]", "adds, changes or removes a login account"),
    ("~aaa", _ACCESS),
    ("~tac[acs-server]", _ACCESS),
    ("~tacacs", _ACCESS),
    ("~rad[ius-server]", _ACCESS),
    ("~radius", _ACCESS),
    ("~pri[vilege]", "changes which commands a privilege level may run"),
    ("~ip ssh", "changes SSH access to the device"),
    ("~ser[vice] int[ernal]", "enables hidden commands"),
    ("~ser[vice] pas[sword-recovery]", "changes password recovery"),
    ("def[ault] in[terface] <mgmt>", "resets the management interface"),
    ("no in[terface] <mgmt>", "removes the management interface"),
    ("te[st]", "test commands can crash or reload the device"),
    ("hw[-module]", "resets or reloads hardware modules"),
    ("red[undancy] f[orce-switchover]", "reloads the active supervisor"),
    ("red[undancy] rel[oad]", "reloads a supervisor or the shelf"),
    ("ins[tall]", "installs or activates software"),
    ("ev[ent] m[anager] r[un]", "runs an EEM applet"),
)
ARISTA_RULES = (
    ("ba[sh]", _SHELL),
    ("~ev[ent-handler]", "runs commands or shell scripts when an event fires"),
    ("~sch[edule]", "runs commands periodically"),
    ("~dae[mon]", "runs a program on the device"),
    ("~man[agement]", "changes how the device is managed (ssh, telnet, api, console)"),
    ("act[ion] ba[sh]", _SHELL),
)
JUNOS_RULES = (
    ("req[uest] sy[stem]", "reboots, halts, zeroizes or upgrades the device"),
    ("lo[ad] fa[ctory-default]", "loads the factory-default configuration"),
    ("lo[ad] o[verride]", "replaces the whole configuration"),
    ("de[lete]$", "deletes the whole configuration"),
    ("rol[lback]", "loads an earlier configuration wholesale"),
    ("de[lete] sy[stem] se[rvices]", "removes management access (ssh/telnet services)"),
    ("de[lete] sy[stem] lo[gin]", "removes the login accounts used for management"),
    ("de[lete] in[terfaces] <mgmt>", "removes the management interface"),
    ("dea[ctivate] in[terfaces] <mgmt>", "disables the management interface"),
    ("se[t] in[terfaces] <mgmt> di[sable]", "disables the management interface"),
    ("se[t] sy[stem] lo[gin] u[ser]", "adds or changes a login account"),
    ("se[t] sy[stem] lo[gin] c[lass]", "changes what a login class may do"),
    ("se[t] sy[stem] ro[ot-authentication]", "changes the root password"),
    ("de[lete] sy[stem] ro[ot-authentication]", "removes the root password"),
    ("se[t] sy[stem] au[thentication-order]", _ACCESS),
    ("se[t] sy[stem] se[rvices]", "changes management access (ssh, telnet, netconf)"),
    ("se[t] sy[stem] sc[ripts]", _SHELL),
    ("se[t] ev[ent-options]", "runs commands or scripts when an event fires"),
    ("se[t] sy[stem] ta[cplus-server]", _ACCESS),
    ("se[t] sy[stem] ra[dius-server]", _ACCESS),
    ("sa[ve] <remote>", "exports the configuration to another host"),
    ("fi[le] co[py]", "copies files to or from the device"),
    ("st[art] sh[ell]", _SHELL),
)
HUAWEI_RULES = (
    ("res[et] sa[ved-configuration]", "erases the saved configuration"),
    ("res[et] fa[ctory-configuration]", "resets the device to factory defaults"),
    ("reb[oot]", "reboots the device"),
    ("sc[hedule] reb[oot]", "schedules a reboot"),
    ("st[artup] sa[ved-configuration]", "changes the configuration the device boots with"),
    ("st[artup] sy[stem-software]", "changes the software the device boots"),
    ("de[lete]", "deletes files from the device"),
    ("fo[rmat]", "formats a file system"),
    ("de[bugging]", "debugging can overload the device"),
    ("ret[urn]$", "leaves system view, so the following lines would run as user-view commands"),
    ("un[do] te[lnet] se[rver] en[able]", "removes management access (telnet server)"),
    ("un[do] st[elnet] se[rver] en[able]", "removes management access (ssh server)"),
    ("~lo[cal-user]", "adds, changes or removes a login account"),
    ("~aaa", _ACCESS),
    ("su[per] pa[ssword]", "sets the super (enable) password"),
    ("tf[tp]", "copies files to or from another host"),
    ("ftp", "copies files to or from another host"),
    ("pa[tch]", "installs software patches"),
)
PREFIXES = {"ios": ("do",), "junos": ("run",), "huawei": ()}
FAMILIES = {
    "cisco_ios": ("ios",),
    "cisco_xe": ("ios",),
    "cisco_xr": ("ios",),
    "cisco_nxos": ("ios",),
    "arista_eos": ("ios", "arista"),
    "juniper_junos": ("junos",),
    "juniper": ("junos",),
    "huawei_vrp": ("huawei",),
    "huawei": ("huawei",),
    "hp_comware": ("huawei",),
}
RULE_SETS = {"ios": IOS_RULES, "arista": ARISTA_RULES, "junos": JUNOS_RULES, "huawei": HUAWEI_RULES}

# Inside a management interface: what would cut the device off (`no shutdown` is fine).
MGMT_INTERFACE_RULES = (
    "~ip add[ress]",
    "~ipv6 add[ress]",
    "~ip un[numbered]",
    "~ip acc[ess-group]",
    "~ipv6 tr[affic-filter]",
    "~vrf",
    "~ip vrf",
    "~cha[nnel-group]",
    "~sw[itchport]",
    "~enc[apsulation]",
    "~sp[eed]",
    "~du[plex]",
    "~mt[u]",
    "~media[-type]",
    "~ip bi[nding]",
    "sh[utdown]",
)
# Inside a terminal line (console, vty, aux; VRP user-interface): who may log in and how.
LINE_RULES = (
    "~log[in]",
    "~pas[sword]",
    "~tr[ansport]",
    "~acc[ess-class]",
    "~ipv6 acc[ess-class]",
    "~au[tocommand]",
    "~pri[vilege]",
    "~exec$",
    "~rot[ary]",
    "~aut[hentication-mode]",
    "~pro[tocol] in[bound]",
    "~acl",
    "~set au[thentication]",
    "~us[er] pri[vilege]",
    "~sh[ell]",
)
REMOTE_SCHEMES = ("tftp", "ftp", "scp", "sftp", "rcp", "http", "https")
MGMT_WORDS = ("management", "mgmt", "meth", "fxp", "em", "me", "vme")

"""The read allow-list: what a read may send per platform, and why anything else is refused."""

from __future__ import annotations

import pytest

from base.errors import ReadRefused, TargetError
from bot.views.read import read_refusal
from workflow.model import Device
from workflow.reads.allowlist import allowed_read
from workflow.reads.request import read_request

INJECTIONS = {
    "show run | redirect tftp://10.0.0.9/x": "`| redirect` is not an output filter",
    "show version ; reload": "may not contain ';'",
    "show run\nreload": "may not contain '\\n'",
    "do reload": "`do` is not a read",
    "copy run tftp": "`copy` is not a read",
    "ping 10.0.0.1 repeat 100000": "out of bounds: at most 5",
    "show run | tee flash:x": "`| tee` is not an output filter",
    "show run | append disk0:x": "`| append` is not an output filter",
    "show run > flash:x": "may not contain '>'",
    "show run\r": "may not contain '\\r'",
    "show run\x1b[A": "may not contain '\\x1b'",
    "show run | include x | redirect scp://h/x": "`| redirect` is not an output filter",
    "reload": "`reload` is not a read",
    "configure terminal": "`configure` is not a read",
    "show": "needs what to show",
    "show run |": "must be followed by a filter",
    "traceroute 10.0.0.1 probe 50": "out of bounds: at most 3",
    "ping 10.0.0.1 timeout 3600": "out of bounds: at most 2",
    "ping 10.0.0.1 vrf x": "option `vrf` is not allowed",
}


@pytest.mark.parametrize(("command", "reason"), INJECTIONS.items())
def test_anything_but_a_read_is_refused_with_the_reason(command: str, reason: str) -> None:
    with pytest.raises(ReadRefused, match=None) as refused:
        allowed_read("cisco_ios_telnet", command)
    assert reason in read_refusal(refused.value)


@pytest.mark.parametrize(
    ("platform", "command", "sent"),
    [
        ("cisco_ios_telnet", "sh ip int br | i up", "show ip int br | include up"),
        ("cisco_ios", "show run | s router ospf", "show run | section router ospf"),
        ("cisco_ios", "ping 10.0.0.1", "ping 10.0.0.1 repeat 5 timeout 2"),
        ("cisco_ios", "ping 10.0.0.1 repeat 2", "ping 10.0.0.1 repeat 2 timeout 2"),
        ("cisco_ios", "traceroute 10.0.0.1", "traceroute 10.0.0.1 timeout 2 probe 1"),
        ("cisco_ios", "ping repeat 2 10.0.0.1", "ping 10.0.0.1 repeat 2 timeout 2"),
        (
            "cisco_ios",
            "traceroute 10.0.0.1 ttl 1 5",
            "traceroute 10.0.0.1 ttl 1 5 timeout 2 probe 1",
        ),
        ("arista_eos_telnet", "ping 10.0.0.1", "ping 10.0.0.1 repeat 5"),
        ("juniper_junos", "ping 10.0.0.1 count 2", "ping 10.0.0.1 count 2 wait 2"),
        ("juniper_junos", "traceroute 10.0.0.1", "traceroute 10.0.0.1 wait 2 ttl 30"),
        ("huawei_vrp", "ping -c 3 10.0.0.1", "ping -c 3 -t 2000 10.0.0.1"),
        ("huawei_vrp", "ping 10.0.0.1 -a 10.0.0.2", "ping -a 10.0.0.2 -c 5 -t 2000 10.0.0.1"),
        ("huawei_vrp", "traceroute 10.0.0.1", "tracert -q 1 -w 2000 -m 30 10.0.0.1"),
        ("frr", "show ip ospf neighbor", "show ip ospf neighbor"),
        ("frr_telnet", "show run | include ospf", "show run | include ospf"),
        ("huawei_vrp", "display ip routing-table", "display ip routing-table"),
        ("juniper_junos", "show route | match 10.0", "show route | match 10.0"),
    ],
)
def test_reads_are_sent_spelled_out_and_bounded(platform: str, command: str, sent: str) -> None:
    assert allowed_read(platform, command) == sent


PROBES_OUT_OF_BOUNDS = {
    ("frr", "ping 10.0.0.1"): "no count or timeout can be given",  # vtysh: `ping WORD` only
    ("frr_telnet", "traceroute 10.0.0.1"): "no count or timeout can be given",
    ("arista_eos", "traceroute 10.0.0.1"): "`traceroute` is not offered here",
    ("arista_eos", "ping 10.0.0.1 repeat 100"): "out of bounds: at most 5",
    ("juniper_junos", "ping 10.0.0.1 count 100000"): "out of bounds: at most 5",
    ("juniper_junos", "ping 10.0.0.1 wait 60"): "out of bounds: at most 2",
    ("juniper_junos", "ping 10.0.0.1 rapid"): "option `rapid` is not allowed",
    ("huawei_vrp", "ping -c 100000 10.0.0.1"): "out of bounds: at most 5",
    ("huawei_vrp", "ping -t 60000 10.0.0.1"): "out of bounds: at most 2000",
    ("huawei_vrp", "traceroute -q 10 10.0.0.1"): "out of bounds: at most 3",
    ("cisco_ios", "ping 10.0.0.1 10.0.0.2"): "option `10.0.0.2` is not allowed",
    ("cisco_ios", "ping repeat 2"): "needs an address",
    ("cisco_nxos", "ping 10.0.0.1"): "`ping` is not offered here",
}


@pytest.mark.parametrize(
    ("platform", "command", "reason"), [(*k, v) for k, v in PROBES_OUT_OF_BOUNDS.items()]
)
def test_probes_are_bounded_on_each_platform_or_refused(
    platform: str, command: str, reason: str
) -> None:
    with pytest.raises(ReadRefused) as refused:
        allowed_read(platform, command)
    assert reason in read_refusal(refused.value)


@pytest.mark.parametrize(
    ("platform", "command"),
    [
        ("frr", "show run | section ospf"),  # vtysh has no `| section`
        ("huawei_vrp", "show version"),  # VRP reads with `display`
        ("juniper_junos", "show route | save /tmp/x"),
        ("some_os", "show version"),
    ],
)
def test_each_platform_has_its_own_list(platform: str, command: str) -> None:
    with pytest.raises(ReadRefused):
        allowed_read(platform, command)


LAB = [Device(f"R{n}", "cisco_ios_telnet", "127.0.0.1", 2000 + n) for n in (1, 2, 3)]


def test_a_read_names_its_devices_fail_closed() -> None:
    request = read_request("show ip route on r1, R2 raw", LAB, max_targets=5)
    assert request.commands == {"R1": "show ip route", "R2": "show ip route"}
    assert request.raw and request.asked == "show ip route"
    on_on = read_request("show logging | include on on R3", LAB, 5)
    assert on_on.commands == {"R3": "show logging | include on"}
    with pytest.raises(TargetError) as unknown:
        read_request("show ip route on R1 R9", LAB, 5)
    assert (unknown.value.problem, unknown.value.word) == ("unknown", "R9")
    with pytest.raises(TargetError) as stray:
        read_request("show ip route on R1 reload", LAB, 5)  # a stray word is not dropped
    assert (stray.value.problem, stray.value.word) == ("unknown", "reload")
    with pytest.raises(ReadRefused) as none_named:
        read_request("show ip route", LAB, 5)
    assert read_refusal(none_named.value).startswith("say which devices: `show ip route on R1")
    with pytest.raises(ReadRefused) as too_many:
        read_request("show ip route on all", LAB, 2)
    assert read_refusal(too_many.value).startswith("3 devices is more than the 2 a read may ask")

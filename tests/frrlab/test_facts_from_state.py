"""A lab whose addresses were set with `ip addr` in the routers' namespaces (as containerlab
labs and lab scripts set them), FRR's configs holding none: labbot learns the addresses from
each router's state, so "configure ospf on all routers" from chat brings every adjacency Full
and every loopback learned."""

from __future__ import annotations

from pathlib import Path

import pytest

from frrlab import FrrLab, generated_topology
from tests.bot.chat import RecordingAdapter
from tests.frrlab.test_chat_changes import (
    bot_on,
    change,
    eventually,
    full_neighbours,
    loopbacks,
    post_check_results,
    routes,
)

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]


def neighbours(lab: FrrLab) -> dict[str, set[str]]:
    """Each router's OSPF neighbours by router-id: the loopbacks of the routers it links to."""
    found: dict[str, set[str]] = {router: set() for router in lab.routers}
    for link in lab.topology.links:
        (a, _), (b, _) = link.a, link.b
        found[a].add(str(lab.topology.device(b).data["loopback"]))
        found[b].add(str(lab.topology.device(a).data["loopback"]))
    return found


@pytest.mark.parametrize("routers", [3, 10])
async def test_ospf_from_chat_on_routers_addressed_outside_frr(
    tmp_path: Path, routers: int
) -> None:
    chat = RecordingAdapter()
    topology = generated_topology(routers)
    async with (
        FrrLab.start(topology, kernel_addresses=True) as lab,
        bot_on(lab, tmp_path, chat) as bot,
    ):
        before = lab.vtysh("R2", "show running-config")
        await change(bot, chat, "configure ospf on all routers with hello-interval 1")
        expected = neighbours(lab)
        assert await eventually(
            lambda: all(full_neighbours(lab, r) == n for r, n in expected.items())
        )
        every = set(loopbacks(lab).values())
        for router, own in loopbacks(lab).items():
            assert await eventually(lambda r=router, o=own: every - {o} <= routes(lab, r, "ospf"))
        after = lab.vtysh("R2", "show running-config")
    assert "ip address" not in before  # the addresses are nowhere in FRR's config
    assert " network 10.0.0.0/30 area 0" in after and " network 10.255.0.2/32 area 0" in after
    assert f"pushed: ✓ {routers} ✗ 0 of {routers}" in chat.texts()[-1], chat.texts()[-1]
    results = post_check_results(chat)
    assert sorted(results) == sorted(f"✓ {router}" for router in lab.routers)
    assert "✓ OSPF neighbour 10.0.0.1 (R1 eth0) Full" in results["✓ R2"], results["✓ R2"]
    assert f"✓ route 10.255.0.{routers}/32 (R{routers} lo) installed" in results["✓ R1"]

"""How long post-checks wait for OSPF: long enough for the timers the devices run."""

from __future__ import annotations

import pytest

from workflow.postcheck_spec import PostChecks
from workflow.postchecks.convergence import post_check_seconds

OSPF = PostChecks(checks=[{"kind": "ospf_neighbors"}, {"kind": "loopback_routes"}], timeout=60)
ROUTES = PostChecks(checks=[{"kind": "loopback_routes"}], timeout=60)
FAST = ["interface eth0", " ip ospf hello-interval 1", " ip ospf dead-interval 4", "router ospf"]
SLOW_RUNNING = "interface eth1\n ip ospf hello-interval 30\n"


@pytest.mark.parametrize(
    ("checks", "lines", "running", "seconds"),
    [
        (OSPF, ["router ospf", " network 10.0.12.0/30 area 0"], "", 100),  # default timers
        (OSPF, FAST, "", 60),  # lab timers: the template's own timeout holds
        (OSPF, ["router ospf"], SLOW_RUNNING, 260),  # what the device already runs
        (OSPF, ["interface eth0", " ip ospf dead-interval 400"], "", 600),  # at most the max
        (ROUTES, ["router ospf"], "", 60),  # no adjacency waited for: as declared
    ],
    ids=["default", "fast", "running", "capped", "no-ospf-check"],
)
def test_the_wait_covers_two_dead_intervals_and_a_margin(
    checks: PostChecks, lines: list[str], running: str, seconds: float
) -> None:
    assert post_check_seconds(checks, {"R1": lines}, {"R1": running}) == seconds

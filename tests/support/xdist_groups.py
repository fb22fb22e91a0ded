"""A guard for `--dist loadgroup` (scripts/test): every test's xdist_group mark must reach the
scheduler, or tests meant to share one worker (one images build, one FRR lab, deployments one at
a time) would silently spread over all of them."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)  # after pytest-xdist has marked the groups in the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("loadgroup", default=False):  # set on xdist's workers
        return
    lost = [i.nodeid for i in items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist did not group {len(lost)} tests by their xdist_group mark (the first: "
            f"{lost[0]}): this pytest and pytest-xdist do not work together "
            "(pytest-xdist 3.8 on pytest 9.2 loses the groups; pyproject.toml bounds pytest)"
        )

"""A guard for `--dist loadgroup` (scripts/test): every test's xdist_group mark must reach the
scheduler, or tests meant to share one worker (one images build, one FRR lab, deployments one at
a time) would silently spread over all of them. A test whose group was lost fails, saying why."""

from __future__ import annotations

import pytest

LOST = pytest.StashKey[bool]()
WHY = (
    "pytest-xdist did not group this test by its xdist_group mark: this pytest and pytest-xdist "
    "do not work together (pytest-xdist 3.8 on pytest 9.2 loses the groups; pyproject.toml "
    "bounds pytest)"
)


@pytest.hookimpl(trylast=True)  # after pytest-xdist has marked the groups in the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("loadgroup", default=False):  # set on xdist's workers
        return
    for item in items:
        if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
            item.stash[LOST] = True


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.stash.get(LOST, False):
        pytest.fail(WHY, pytrace=False)

"""The container tests' engine and images: built once per run (under pytest-xdist the container
tests share one worker with the scale tests: `xdist_group("deployments")`, see
tests/scale/conftest.py). Without an engine they are skipped with one line — except under CI
(CI=true), where a missing engine is a failure."""

from __future__ import annotations

import os

import pytest

from tests.deploy.engine import Images, build_images, engine_problem


@pytest.fixture(scope="session")
def images() -> Images:
    problem = engine_problem()
    if problem and os.environ.get("CI") == "true":
        pytest.fail(f"CI needs the container tests to run: {problem}")
    if problem:
        pytest.skip(problem)
    return build_images()

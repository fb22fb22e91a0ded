"""One real Synapse for the whole session; fresh people (and a fresh bot store) per test."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from adapters.matrix.adapter import MatrixAdapter
from adapters.matrix.e2ee import TrustMode
from adapters.matrix.session import Credentials
from bot.runtime.wiring import Runtime
from bot.settings import load_settings
from labsim import Lab
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.labbot_harness import (
    ServeLabbot,
    labbot,
    labbot_settings,
    simulated_lab,
)
from tests.fakes.synapse import MatrixAccount, Synapse, running_synapse
from workflow.ports import Inventory

_names = itertools.count(1)


@pytest.fixture(scope="session")
def synapse() -> Iterator[Synapse]:
    try:
        with running_synapse() as server:
            yield server
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def bot_account(synapse: Synapse) -> MatrixAccount:
    """A bot account of its own per test, so no test sees another test's rooms."""
    return synapse.register(f"labbot{next(_names)}", "bot-password")


@pytest.fixture
def make_bot(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path
) -> Callable[..., MatrixAdapter]:
    """Build adapters for the bot account (password login, store dir kept across restarts)."""

    def build(
        rooms: tuple[str, ...] = (), store_dir: Path | None = None, trust: TrustMode = "tofu"
    ) -> MatrixAdapter:
        credentials = Credentials(synapse.url, bot_account.user_id, password="bot-password")
        return MatrixAdapter(credentials, store_dir or tmp_path / "matrix", rooms, trust)

    return build


async def _user(synapse: Synapse, name: str) -> ChatUser:
    user = ChatUser(synapse.url, synapse.register(f"{name}{next(_names)}"))
    await user.start()
    return user


@pytest.fixture
async def alice(synapse: Synapse) -> AsyncIterator[ChatUser]:
    user = await _user(synapse, "alice")
    yield user
    await user.close()


@pytest.fixture
async def bob(synapse: Synapse) -> AsyncIterator[ChatUser]:
    user = await _user(synapse, "bob")
    yield user
    await user.close()


@pytest.fixture
async def e2e_user(
    synapse: Synapse, tmp_path: Path
) -> AsyncIterator[Callable[[str], Awaitable[ChatUser]]]:
    """Make people with their own E2EE clients (key stores under tmp_path), closed at the end."""
    made: list[ChatUser] = []

    async def make(name: str) -> ChatUser:
        account = synapse.register(f"{name}{next(_names)}")
        user = ChatUser(synapse.url, account, store_dir=tmp_path / "people" / account.user_id)
        await user.start()
        made.append(user)
        return user

    yield make
    for user in made:
        await user.close()


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[tuple[Lab, Inventory]]:
    """A simulated lab of three routers (the end-to-end tests' devices)."""
    async with simulated_lab(load_settings(data_dir=tmp_path)) as lab_and_inventory:
        yield lab_and_inventory


@pytest.fixture
def serve_labbot(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path, lab: tuple[Lab, Inventory]
) -> ServeLabbot:
    """`async with serve_labbot(**settings) as runtime`: labbot as `labbot serve` runs it, as the
    bot account, on the simulated lab, its data in tmp_path (so a second start is a restart)."""
    _, inventory = lab

    def serve(**overrides: Any) -> AbstractAsyncContextManager[Runtime]:
        return labbot(labbot_settings(synapse, bot_account, tmp_path, **overrides), inventory)

    return serve

"""Deliveries seen: first wins per (team, key) on both backends; rows older than a day go."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.vocabulary import utc_now
from storage.deliveries import DeliveryStore
from storage.schema import deliveries


async def test_one_caller_wins_a_delivery_and_other_teams_are_apart(engine: AsyncEngine) -> None:
    store = DeliveryStore(engine)
    answers = await asyncio.gather(*(store.first_time("T1", "event:Ev1") for _ in range(5)))
    assert sorted(answers) == [False, False, False, False, True]
    assert await store.first_time("T2", "event:Ev1")  # the same id in another workspace


async def test_deliveries_older_than_a_day_are_pruned(engine: AsyncEngine) -> None:
    old = {"team": "T1", "key": "event:old", "received_at": utc_now() - timedelta(days=2)}
    async with engine.begin() as conn:
        await conn.execute(sa.insert(deliveries).values(old))
    assert await DeliveryStore(engine).first_time("T1", "event:new")  # the first one prunes
    async with engine.connect() as conn:
        kept = (await conn.execute(sa.select(deliveries.c.key))).scalars().all()
    assert kept == ["event:new"]

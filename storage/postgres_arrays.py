"""PostgreSQL inserts of many rows as one statement: each column given as one array, unnested."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql


def unnest_insert(table: sa.Table, columns: tuple[str, ...]) -> Any:
    """PostgreSQL: INSERT rows given as one array per column (parameters `<table>_<column>`), so
    any number of rows is one prebuilt statement, one round trip and one commit."""
    arrays = [
        sa.bindparam(f"{table.name}_{name}", type_=postgresql.ARRAY(table.c[name].type))
        for name in columns
    ]
    rows = sa.func.unnest(*arrays).table_valued(*columns).render_derived("given")
    return postgresql.insert(table).from_select(list(columns), sa.select(rows))


def as_arrays(
    table: sa.Table, columns: tuple[str, ...], rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """The parameters of `unnest_insert`: rows turned into one list per column."""
    return {f"{table.name}_{name}": [row[name] for row in rows] for name in columns}

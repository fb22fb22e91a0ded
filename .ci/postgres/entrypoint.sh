#!/bin/sh
# PostgreSQL from Debian's packages with the official image's contract: POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, data in $PGDATA, /docker-entrypoint-initdb.d/*.sql run once
# on a new database. Built by .ci/docker-images.sh (no registry needed).
set -eu
PGDATA=${PGDATA:-/var/lib/postgresql/data}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
USER_NAME=${POSTGRES_USER:-postgres}
DB_NAME=${POSTGRES_DB:-$USER_NAME}
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" >"$pwfile"
  "$BIN/initdb" -D "$PGDATA" -U "$USER_NAME" --pwfile="$pwfile" \
    --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  "$BIN/pg_ctl" -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
  [ "$DB_NAME" = postgres ] || "$BIN/createdb" -U "$USER_NAME" "$DB_NAME"
  for script in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$script" ] || continue
    echo "entrypoint: running $script"
    "$BIN/psql" -q -v ON_ERROR_STOP=1 -U "$USER_NAME" -d "$DB_NAME" -f "$script" >/dev/null
  done
  "$BIN/pg_ctl" -D "$PGDATA" -w -m fast stop >/dev/null
fi
exec "$BIN/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"

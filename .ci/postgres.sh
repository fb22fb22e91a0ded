#!/usr/bin/env bash
# Start a throwaway PostgreSQL on 127.0.0.1 for the tests; print its URL on stdout.
# Usage: .ci/postgres.sh start|stop|resume   (PGPORT, PGDATA_DIR may be set)
# start: a fresh cluster unless one runs there; resume: start the stopped cluster, data kept.
set -euo pipefail
PGPORT=${PGPORT:-55432}
PGDATA_DIR=${PGDATA_DIR:-/tmp/labbot-test-pg}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
run_as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
start_server() {
  run_as_pg "$PGBIN/pg_ctl -D $PGDATA_DIR -w -l $PGDATA_DIR/server.log \
    -o '-c listen_addresses=127.0.0.1 -p $PGPORT -k /tmp -c fsync=off -c max_connections=200' start" >/dev/null
}
case "${1:-start}" in
  start)
    # a server answering on the port is kept (its data is never removed while it runs)
    if ! "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" \
      && ! run_as_pg "$PGBIN/pg_ctl -D $PGDATA_DIR status" >/dev/null 2>&1; then
      rm -rf "$PGDATA_DIR"; mkdir -p "$PGDATA_DIR"
      [ "$(id -u)" = 0 ] && chown postgres "$PGDATA_DIR"
      run_as_pg "$PGBIN/initdb -D $PGDATA_DIR -A trust -U labbot --no-sync" >/dev/null
      start_server
      run_as_pg "$PGBIN/createdb -h 127.0.0.1 -p $PGPORT -U labbot labbot_test"
    fi
    echo "postgresql+psycopg://labbot@127.0.0.1:$PGPORT/labbot_test"
    ;;
  resume)
    start_server
    ;;
  stop) run_as_pg "$PGBIN/pg_ctl -D $PGDATA_DIR -m fast stop" >/dev/null ;;
esac

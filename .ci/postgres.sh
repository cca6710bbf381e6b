#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a local port for the ledger's tests.
#   source .ci/postgres.sh start   -> exports MAHJONG_ASSISTANT_TEST_PG (a postgresql:// URL)
#   .ci/postgres.sh stop
# Debian's package (postgresql) is installed when initdb is missing. The cluster lives in a temporary
# folder owned by the postgres user (initdb refuses to run as root), trusts local connections, and is
# stopped and removed by 'stop'.
PG_PORT="${PG_PORT:-54329}"
PG_DIR="${PG_DIR:-/tmp/mahjong-assistant-ci-pg}"
PG_FSYNC="${PG_FSYNC:-off}"   # off for the tests' speed; PG_FSYNC=on for load figures that mean durability

_pg_bin() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

_as_pg() {
    if [ "$(id -u)" = "0" ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

pg_start() {
    local bin
    if ! bin="$(_pg_bin)"; then
        (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) || { echo "postgresql not installed"; return 1; }
        bin="$(_pg_bin)" || return 1
    fi
    pg_stop >/dev/null 2>&1 || true
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = "0" ] && chown postgres "$PG_DIR"
    _as_pg "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null || return 1
    _as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
        -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=$PG_FSYNC -c max_connections=200" start >/dev/null || {
        cat "$PG_DIR/log"; return 1; }
    export MAHJONG_ASSISTANT_TEST_PG="postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
    echo "PostgreSQL on $MAHJONG_ASSISTANT_TEST_PG"
}

pg_stop() {
    local bin
    bin="$(_pg_bin)" || return 0
    [ -d "$PG_DIR/data" ] && _as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1
    rm -rf "$PG_DIR"
}

case "${1:-}" in
    start) pg_start ;;
    stop) pg_stop ;;
    *) echo "usage: source .ci/postgres.sh start | .ci/postgres.sh stop" >&2 ;;
esac

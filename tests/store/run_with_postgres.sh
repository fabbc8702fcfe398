#!/bin/sh
# run_with_postgres.sh COMMAND [ARGS...]: runs COMMAND against a throw-away
# PostgreSQL server of its own, then stops and removes the server (also on
# failure or interruption).
#
# The cluster is made with initdb in a fresh temporary directory and
# started with pg_ctl on a Unix socket in that directory (no TCP port:
# listen_addresses=''), as an unprivileged user: PostgreSQL refuses to run
# as root, so under root the server runs as `postgres` (runuser).  COMMAND
# gets ETKIT_TEST_PG_HOST (the socket directory), ETKIT_TEST_PG_USER and
# ETKIT_TEST_PG_BIN (the server's bin directory, with psql).
# Without the server binaries it prints SKIPPED and exits 77, except under
# CI=true, where a missing PostgreSQL is a failure.
set -u
pgbin=${ETKIT_PG_BIN:-}
if [ -z "$pgbin" ]; then
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    pgbin=$d
  done
fi
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ] || [ ! -x "$pgbin/pg_ctl" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "FAILED: PostgreSQL server binaries not found (CI=true): install postgresql"
    exit 1
  fi
  echo "SKIPPED: PostgreSQL server binaries not found (apt-get install postgresql)"
  exit 77
fi
if [ "$(id -u)" -eq 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "FAILED: running as root and there is no 'postgres' user to run the server"
    exit 1
  fi
  user=postgres
  as_user="runuser -u postgres --"
else
  user=$(id -un)
  as_user=""
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/etkit-pg.XXXXXX") || exit 1
chmod 755 "$dir"
[ "$user" = postgres ] && [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
started=0
cleanup() {
  if [ "$started" = 1 ]; then
    $as_user "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! $as_user "$pgbin/initdb" -D "$dir/data" -U "$user" --auth=trust \
    -E UTF8 --no-locale >"$dir/initdb.log" 2>&1; then
  echo "FAILED: initdb"; cat "$dir/initdb.log"; exit 1
fi
if ! $as_user "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories=$dir -c fsync=off -c max_connections=64" \
    start >/dev/null 2>&1; then
  echo "FAILED: pg_ctl start"; cat "$dir/server.log"; exit 1
fi
started=1
ETKIT_TEST_PG_HOST=$dir ETKIT_TEST_PG_USER=$user ETKIT_TEST_PG_BIN=$pgbin "$@"

#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the sink's tests and benchmarks:
#   scripts/pg_cluster.sh start DIR   initdb in DIR, start on a free loopback
#                                     port, print the superuser's URL
#   scripts/pg_cluster.sh stop DIR    stop it (the caller removes DIR)
#   scripts/pg_cluster.sh restart DIR stop and start again on the same port
# Debian's postgresql server programs are used (make pg-deps installs them).
# Run as root, the cluster runs as `nobody`: PostgreSQL refuses root.
# Any failure exits non-zero with the reason: the tests fail, never skip.
set -euo pipefail

cmd=${1:?usage: pg_cluster.sh start|stop|restart DIR}
dir=${2:?usage: pg_cluster.sh start|stop|restart DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg_cluster.sh: PostgreSQL's server is not installed (make pg-deps, or apt-get install postgresql)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

pgctl() { as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 "$@"; }

case $cmd in
start)
  mkdir -p "$dir/socket"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  printf 'ohk-test-password\n' >"$dir/password"
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$dir"
    chmod 700 "$dir"
    as_owner test -w "$dir/socket" ||
      { echo "pg_cluster.sh: user nobody cannot reach $dir (a parent folder is closed to others)" >&2; exit 1; }
  fi
  as_owner "$bin/initdb" -D "$dir/data" -U ohk --pwfile="$dir/password" --auth-local=trust \
    --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  echo "$port" >"$dir/port"
  cat >>"$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
max_connections = 50
CONF
  pgctl start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgresql://ohk:ohk-test-password@127.0.0.1:$port/postgres"
  ;;
stop)
  pgctl -m fast stop >/dev/null
  ;;
restart)
  pgctl -m fast restart >/dev/null
  ;;
*)
  echo "usage: pg_cluster.sh start|stop|restart DIR" >&2
  exit 64
  ;;
esac

#!/usr/bin/env bash
# The network loaders side by side (issue 10): nginx on loopback serves 200 JPEGs of ~50 KB
# under 2,000 distinct URLs; `shashin-bench network` then measures, in one process, alternating
# the order each round, `pipeline.data(for:)` on the AsyncHTTPClient loader, bare
# AsyncHTTPClient and `pipeline.data(for:)` on the URLSession loader (6 in flight, medians of 5
# rounds, CPU time per request); then decoding to 96 px thumbnails pinned to 1 core and to 2
# cores with taskset. Installs nginx-light (scripts/install-deps.sh) and builds in release.
#
#   scripts/bench-network.sh            the full run (figures in BENCHMARKS.md)
#   SMOKE=1 scripts/bench-network.sh    tiny counts on the debug build: checks the script works, measures nothing
#
# Reads SWIFT, SCRATCH_PATH, ROUNDS, and NETWORK_ARGS (more flags for the loaders' row, such as
# `--only 0` for the pipeline alone in its process).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${SMOKE:-0}" == 1 ]]; then
    files=10; urls=60; rounds=1
else
    files=200; urls=2000; rounds=${ROUNDS:-5}
fi

NEED_NGINX=1 scripts/install-deps.sh
NO_PILLOW=1 source scripts/bench-common.sh
chmod 755 "$workdir"  # nginx's workers read the files as another user
cleanup() {
    [[ -f "$workdir/nginx.pid" ]] && kill "$(cat "$workdir/nginx.pid")" 2>/dev/null || true
    rm -rf "$workdir"
}
trap cleanup EXIT

mkdir -p "$workdir/img"
echo "Generating $files JPEGs…" >&2
for ((i = 0; i < files; i++)); do
    "$shashin" generate --format jpeg --width 640 --height 480 --seed $((i + 1)) -o "$workdir/img/$i.jpg" >/dev/null
done
chmod -R a+rX "$workdir/img"
echo "Mean file size: $(( $(cat "$workdir"/img/*.jpg | wc -c) / files )) bytes" >&2

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$workdir/nginx.conf" <<CONF
daemon on;
pid $workdir/nginx.pid;
error_log $workdir/error.log;
worker_processes 1;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 100000;
    client_body_temp_path $workdir/tmp;
    proxy_temp_path $workdir/tmp;
    fastcgi_temp_path $workdir/tmp;
    uwsgi_temp_path $workdir/tmp;
    scgi_temp_path $workdir/tmp;
    server {
        listen 127.0.0.1:$port;
        root $workdir;
        location /img/ { default_type image/jpeg; }
    }
}
CONF
mkdir -p "$workdir/tmp"
nginx -c "$workdir/nginx.conf"
for _ in $(seq 50); do [[ -s "$workdir/nginx.pid" ]] && break; sleep 0.1; done
base="http://127.0.0.1:$port"

echo "== machine"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores; $(uname -srm); $("$SWIFT" --version 2>&1 | grep -m1 'Swift version'); $(nginx -v 2>&1)"
echo "== loaders: $urls URLs over $files files, 6 in flight, $rounds rounds"
"$bench" network --base "$base" --files "$files" --urls "$urls" --rounds "$rounds" ${NETWORK_ARGS:-}
echo "== thumbnails (96 px), 1 core"
taskset -c 0 "$bench" network --thumbnails --base "$base" --files "$files" --urls "$urls" --rounds "$rounds"
echo "== thumbnails (96 px), 2 cores"
taskset -c 0,1 "$bench" network --thumbnails --base "$base" --files "$files" --urls "$urls" --rounds "$rounds"

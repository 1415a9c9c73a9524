#!/usr/bin/env bash
# The status page's cost: what polling /status.json 100 times a second costs a busy server, measured
# with `tether bench` beside it. A `tether serve --admin` process serves echo and its status page;
# one `tether bench` process drives it the whole time, and the run is cut into windows of WINDOW
# seconds, alternately quiet and with a poller that GETs /status.json every 10 ms over one
# keep-alive connection (ABBA order, PAIRS pairs). Calls/s per window come from the server's own
# `served` count, read at each window's edges (one request per edge), so neither JVM start-up nor
# JIT warm-up falls into a window.
#   docs/scripts/status-json-cost.sh [PAIRS=8] [WINDOW=5] [CONCURRENCY=16]
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-8}
window=${2:-5}
concurrency=${3:-16}
port=7431
admin=9431
jar=tether-cli/target/tether.jar
[[ -f "$jar" ]] || { echo "build $jar first: mvn -B -q -pl tether-cli -am package -DskipTests" >&2; exit 1; }

java -jar "$jar" serve --endpoints "tcp -h 127.0.0.1 -p $port" --admin "127.0.0.1:$admin" >/tmp/status-cost-serve.log 2>&1 &
server=$!
bench=
trap 'kill $server ${bench:-} 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "echo:" /tmp/status-cost-serve.log 2>/dev/null && break
  sleep 0.1
done

warmup=10
total=$((warmup + pairs * 2 * window + 5))
java -jar "$jar" bench "echo:tcp -h 127.0.0.1 -p $port" --concurrency "$concurrency" --duration "${total}s" \
  >/tmp/status-cost-bench.log 2>&1 &
bench=$!

python3 - "$admin" "$pairs" "$window" "$warmup" <<'EOF'
import http.client, json, sys, time
admin, pairs, window, warmup = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
conn = http.client.HTTPConnection("127.0.0.1", admin, timeout=5)

def get():
    conn.request("GET", "/status.json")
    r = conn.getresponse()
    body = r.read()
    return r.status, body

def served():
    status, body = get()
    return sum(s["served"] for s in json.loads(body)["servers"])

def phase(polled):
    start_count, start = served(), time.monotonic()
    end = start + window
    answered = 0
    next_at = start
    while time.monotonic() < end:
        if polled:
            answered += get()[0] == 200
            next_at += 0.01
            time.sleep(max(0.0, min(next_at, end) - time.monotonic()))
        else:
            time.sleep(max(0.0, end - time.monotonic()))
    count, now = served(), time.monotonic()
    return (count - start_count) / (now - start), answered / (now - start)

time.sleep(warmup)
quiet, polled = [], []
print("pair  without polling  with polling  (status.json answered/s)")
for p in range(pairs):
    order = [True, False] if p % 2 else [False, True]
    rates = {}
    for is_polled in order:
        rates[is_polled] = phase(is_polled)
    quiet.append(rates[False][0])
    polled.append(rates[True][0])
    print(f"{p + 1:4d}  {rates[False][0]:15,.0f}  {rates[True][0]:12,.0f}  ({rates[True][1]:.0f})")
q, w = sum(quiet) / pairs, sum(polled) / pairs
print(f"mean {q:,.0f} calls/s without, {w:,.0f} with polling: {100 * (1 - w / q):.1f}% cost")
EOF

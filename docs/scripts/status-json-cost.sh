#!/usr/bin/env bash
# Issue 12's figure: what polling /status.json 100 times a second costs a busy server, measured
# with `tether bench` beside it. A `tether serve --admin` process serves echo and its status page;
# `tether bench` drives it in phases of PHASE seconds, alternately with and without a poller that
# GETs /status.json every 10 ms over one keep-alive connection (ABBA order, PAIRS pairs), and the
# mean calls/s of both kinds of phase is compared.
#   docs/scripts/status-json-cost.sh [PAIRS=6] [PHASE=5] [CONCURRENCY=16]
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-6}
phase=${2:-5}
concurrency=${3:-16}
port=7431
admin=9431
jar=tether-cli/target/tether.jar
[[ -f "$jar" ]] || { echo "build $jar first: mvn -B -q -pl tether-cli -am package -DskipTests" >&2; exit 1; }

java -jar "$jar" serve --endpoints "tcp -h 127.0.0.1 -p $port" --admin "127.0.0.1:$admin" >/tmp/status-cost-serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "echo:" /tmp/status-cost-serve.log 2>/dev/null && break
  sleep 0.1
done

poll() { # polls for $1 seconds at 100 requests/s; prints how many were answered 200
  python3 - "$admin" "$1" <<'EOF'
import http.client, sys, time
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
end = time.monotonic() + float(sys.argv[2])
ok = 0
next_at = time.monotonic()
while time.monotonic() < end:
    conn.request("GET", "/status.json")
    r = conn.getresponse()
    r.read()
    ok += r.status == 200
    next_at += 0.01
    time.sleep(max(0.0, next_at - time.monotonic()))
print(ok)
EOF
}

bench() { # one phase of load; prints calls/s
  java -jar "$jar" bench "echo:tcp -h 127.0.0.1 -p $port" --concurrency "$concurrency" --duration "${phase}s" 2>&1 \
    | sed -n 's/.*: \([0-9,]*\) calls\/s.*/\1/p' | tr -d ,
}

bench >/dev/null # warm-up: JIT and connections
quiet_sum=0
polled_sum=0
echo "pair  without polling  with polling (answered)"
for p in $(seq 1 "$pairs"); do
  if (( p % 2 == 0 )); then
    poll "$phase" >/tmp/status-cost-poll.txt & poller=$!
    with=$(bench); wait $poller
    without=$(bench)
  else
    without=$(bench)
    poll "$phase" >/tmp/status-cost-poll.txt & poller=$!
    with=$(bench); wait $poller
  fi
  printf "%4d  %15s  %12s (%s)\n" "$p" "$without" "$with" "$(cat /tmp/status-cost-poll.txt)"
  quiet_sum=$((quiet_sum + without))
  polled_sum=$((polled_sum + with))
done
python3 -c "q=$quiet_sum/$pairs; w=$polled_sum/$pairs; print(f'mean {q:,.0f} calls/s without, {w:,.0f} with polling: {100*(1-w/q):.1f}% cost')"

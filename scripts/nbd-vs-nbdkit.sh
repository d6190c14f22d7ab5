#!/usr/bin/env bash
# Side-by-side speed of `ssdlab serve --latency none` and `nbdkit memory` (issue 13's
# speed line): fio 4 KiB random writes at QD 32 over a unix socket, interleaved rounds
# (nbdkit, ssdlab design 1, ssdlab design 2, ... per round), then the median IOPS and
# the median per-round ratio to nbdkit. Besides IOPS (which depends on how busy the
# machine is) it reports the server process's CPU time per request, user + system from
# /proc/PID/stat over the fio run: a figure that holds on a loaded machine.
#
# usage: scripts/nbd-vs-nbdkit.sh [ROUNDS] [SECONDS]
#   SSDLAB=path/to/ssdlab (default target/release/ssdlab)
#   BASE=path/to/another/ssdlab (optional: run it too in each round, to compare builds)
#   DESIGNS='--buffer none|' (designs separated by '|'; an empty design, e.g. DESIGNS='',
#     is the default preset's own buffer)
#   EXTRA='...' flags added to every ssdlab serve (e.g. --capacity)
#   PREFIX='chrt -f 10' runs servers and fio under this command: real-time priority
#     (root) gives them the CPUs ahead of other work on a shared machine, close to an
#     idle one (nice does not: autogroups share the CPU per session, whatever the nice
#     level). It takes the CPUs from everything else for the run: keep runs short.
# needs: fio (with the nbd engine), nbdkit, a Linux /proc.
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
ssdlab=${SSDLAB:-target/release/ssdlab}
designs=${DESIGNS---buffer none}
extra=${EXTRA:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
clk=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime of the process (all its threads), in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

wait_socket() {
    for _ in $(seq 200); do [ -S "$1" ] && return 0; sleep 0.05; done
    echo "server did not create $1" >&2
    return 1
}

# one NAME CMD...: starts the server, runs fio, prints "NAME iops cpu_us_per_request".
one() {
    local name=$1
    shift
    local sock=$dir/s.sock
    rm -f "$sock"
    # shellcheck disable=SC2086
    ${PREFIX:-} "$@" >"$dir/server.out" 2>&1 &
    local pid=$!
    wait_socket "$sock"
    local t0
    t0=$(cpu_ticks "$pid")
    # shellcheck disable=SC2086
    ${PREFIX:-} fio --name=w --ioengine=nbd --uri="nbd+unix:///?socket=$sock" --rw=randwrite \
        --bs=4k --iodepth=32 --size=1g --time_based --runtime="$secs" \
        --output-format=json --output="$dir/fio.json" >/dev/null
    local t1
    t1=$(cpu_ticks "$pid")
    kill -TERM "$pid"
    wait "$pid" || true
    python3 - "$dir/fio.json" "$name" "$t0" "$t1" "$clk" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]
ios, iops = j["total_ios"], j["iops"]
t0, t1, clk = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"{sys.argv[2]}\t{iops:.0f}\t{(t1 - t0) / clk * 1e6 / max(ios, 1):.2f}")
EOF
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)${PREFIX:+, under '$PREFIX'}" >&2
IFS='|' read -r -a ds <<<"$designs"
# An empty list (or a trailing '|') means one design with no extra flags.
if [ ${#ds[@]} -eq 0 ] || [ "${designs: -1}" = "|" ]; then ds+=(""); fi
results=$dir/results
for r in $(seq "$rounds"); do
    one nbdkit nbdkit -f -U "$dir/s.sock" memory 16G | tee -a "$results"
    for d in "${ds[@]}"; do
        for bin in ${BASE:+"$BASE"} "$ssdlab"; do
            label="ssdlab ${d:-default}"
            [ "$bin" = "$ssdlab" ] || label="base ${d:-default}"
            # shellcheck disable=SC2086
            one "$label" "$bin" serve --socket "$dir/s.sock" \
                --capacity 16GiB --ftl page --latency none $extra $d | tee -a "$results"
        done
    done
    echo "round $r done, load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
python3 - "$results" <<'EOF'
import statistics, sys
from collections import defaultdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = defaultdict(list)
base = []
for name, iops, cpu in rows:
    if name == "nbdkit":
        base.append(float(iops))
    by[name].append((float(iops), float(cpu), base[-1]))
print(f"{'server':<28} {'median IOPS':>12} {'median ratio':>13} {'CPU us/request':>15}")
for name, v in by.items():
    iops = statistics.median(x[0] for x in v)
    ratio = statistics.median(x[0] / x[2] for x in v)
    cpu = statistics.median(x[1] for x in v)
    print(f"{name:<28} {iops:>12.0f} {ratio:>13.2f} {cpu:>15.2f}")
EOF
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

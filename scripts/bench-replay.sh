#!/usr/bin/env bash
# The issue-12 replay rows of BENCHMARKS.md side by side: the 1 M-request hot-cold trace
# replayed at --qd 32 without a buffer, with a 256 MiB LRU buffer, and on MQSim's default
# geometry, alternating a base binary and this tree's binary ROUNDS times, then the
# median wall-clock time of each (and the buffered/unbuffered ratio of each binary).
#
#   scripts/bench-replay.sh                      # base = $BASE, new = target/release/ssdlab
#   BASE=/tmp/speed-base/ssdlab ROUNDS=5 scripts/bench-replay.sh
#   CACHEGRIND=1 scripts/bench-replay.sh         # instruction counts instead (load-independent;
#                                                # 200 k requests, a minute or two per run)
#
# Needs: a built ssdlab (cargo build --release), python3, GNU time; valgrind for
# CACHEGRIND=1. The trace is generated on first use (about 30 MB in $WORK). Not part of
# CI; wall-clock figures mean something only on an idle machine (the load average is
# printed before and after).
set -euo pipefail
# shellcheck source=scripts/bench-common.sh
. "$(dirname "$0")/bench-common.sh"
small=$work/b200k.ascii
[ -s "$small" ] || head -n 200000 "$trace" > "$small"

designs=(
    "none|--capacity 64GiB --buffer none"
    "lru|--capacity 64GiB --buffer lru --buffer-size 256MiB"
    "mqsim|--capacity 476GiB --set device.page_size=8KiB --buffer lru --buffer-size 256MiB"
)

if [ -n "${CACHEGRIND:-}" ]; then
    for d in "${designs[@]}"; do
        name=${d%%|*}
        args=${d#*|}
        for b in base new; do
            bin=$base
            [ $b = new ] && bin=$new
            # shellcheck disable=SC2086
            refs=$(valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
                "$bin" run --trace "$small" --format ascii --qd 32 -q $args 2>&1 >/dev/null |
                awk '/I +refs:/ { gsub(",", "", $NF); i = $NF } /D1 +misses:/ { gsub(",", "", $4); d = $4 }
                     END { print i, d }')
            echo "$name $b instructions/D1-misses: $refs"
        done
    done
    exit 0
fi

say_load before
results=$(mktemp)
for r in $(seq "$rounds"); do
    for d in "${designs[@]}"; do
        name=${d%%|*}
        args=${d#*|}
        for b in base new; do
            bin=$base
            [ $b = new ] && bin=$new
            # shellcheck disable=SC2086
            /usr/bin/time -f "$name $b %e %U %M" -a -o "$results" \
                "$bin" run --trace "$trace" --format ascii --qd 32 -q $args >/dev/null 2>&1
        done
    done
    round_done "$r"
done
say_load after
python3 - "$results" <<'EOF'
import statistics, sys
# Wall-clock and user CPU time: on a loaded machine the wall clock includes waiting for
# a CPU; user time does not (but still grows with cache contention).
runs = {}
for line in open(sys.argv[1]):
    name, b, wall, user, kb = line.split()
    runs.setdefault((name, b), []).append((float(wall), float(user), int(kb)))
med = lambda v, i: statistics.median(r[i] for r in v)
print(f"{'design':8} {'binary':6} {'wall s':>7} {'user s':>7} {'wall runs':24} {'peak MB':>8}")
for (name, b), v in sorted(runs.items()):
    print(f"{name:8} {b:6} {med(v, 0):7.2f} {med(v, 1):7.2f} "
          f"{' '.join(f'{r[0]:.2f}' for r in v):24} {max(r[2] for r in v) / 1024:8.0f}")
for b in ("base", "new"):
    lru, none = runs.get(("lru", b)), runs.get(("none", b))
    if lru and none:
        print(f"{b}: buffered / unbuffered = {med(lru, 0) / med(none, 0):.2f} wall, "
              f"{med(lru, 1) / med(none, 1):.2f} user (target <= 1.3)")
EOF
rm -f "$results"

#!/usr/bin/env bash
# The issue-2 rows of BENCHMARKS.md (the scenarios of `cargo bench --bench throughput`)
# side by side: a base binary and this tree's binary alternate ROUNDS times on each row,
# then the median of each is printed. `cargo bench` measures one binary; this script is
# for "no speed regression against the previous binary" claims.
#
#   BASE=/tmp/old/ssdlab scripts/bench-rows.sh              # new = target/release/ssdlab
#   NEW=/path/a BASE=/path/b ROUNDS=5 scripts/bench-rows.sh
#   ROWS="steady-count fresh" scripts/bench-rows.sh         # a subset of the rows
#   BASE_ARGS="--config old.toml" NEW_ARGS="--config new.toml" scripts/bench-rows.sh
#       # extra arguments per binary, e.g. to pin the same design when the default preset
#       # differs between the two (compare the `config.resolved` sections of their reports)
#
# Rows: steady-count, steady-full (16 M steady random 4 KiB writes on 64 GiB, flash
# programs per second of the measured phase), fresh (the 1 M-request hot-cold trace on a
# fresh 64 GiB device, measured-phase seconds), filled (the same trace on a 16 GiB device
# filled first, requests per second), tib (a filled 1 TiB device, peak RSS). Needs
# python3 and GNU time. Not part of CI: a few minutes per round, and wall-clock figures
# mean something only on an idle machine (the load average is printed per round).
set -euo pipefail
# shellcheck source=scripts/bench-common.sh
. "$(dirname "$0")/bench-common.sh"
rows=${ROWS:-steady-count steady-full fresh filled tib}

args_of() {
    case $1 in
    steady-count | steady-full)
        echo "--capacity 64GiB --op 7 --gc greedy --workload random-write --requests 16M" \
            "--steady --qd 32 --timing ${1#steady-}" ;;
    fresh) echo "--trace $trace --format ascii --capacity 64GiB --qd 32" ;;
    filled) echo "--trace $trace --format ascii --capacity 16GiB --fill --qd 32" ;;
    tib) echo "--capacity 1TiB --op 7 --workload random-write --requests 1M --fill --timing count" ;;
    *) echo "unknown row '$1' (expected steady-count, steady-full, fresh, filled, tib)" >&2; exit 2 ;;
    esac
}
for row in $rows; do args_of "$row" >/dev/null; done

results=$(mktemp)
json=$(mktemp)
rss=$(mktemp)
trap 'rm -f "$results" "$json" "$rss"' EXIT
say_load before
for r in $(seq "$rounds"); do
    for row in $rows; do
        for b in base new; do
            bin=$base extra=${BASE_ARGS:-}
            [ $b = new ] && bin=$new extra=${NEW_ARGS:-}
            # shellcheck disable=SC2046,SC2086
            /usr/bin/time -f "%M" -o "$rss" "$bin" run $extra $(args_of "$row") -q --json "$json" \
                >/dev/null 2>&1
            kb=$(tail -n 1 "$rss")
            python3 - "$json" "$row" "$b" "$kb" >>"$results" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
row, b, kb = sys.argv[2], sys.argv[3], int(sys.argv[4])
secs = r["wall_clock_measured_s"]
if row.startswith("steady"):
    value = r["nand_program_pages"] / secs / 1e6
elif row == "filled":
    value = r["counters"]["host.requests"] / secs / 1e3
elif row == "tib":
    value = kb / 1024
else:
    value = secs
print(row, b, value, r["write_amplification"])
EOF
        done
    done
    round_done "$r"
done
say_load after
python3 - "$results" <<'EOF'
import statistics, sys
unit = {"steady-count": "M programs/s", "steady-full": "M programs/s", "fresh": "s",
        "filled": "K requests/s", "tib": "MiB peak RSS"}
runs = {}
for line in open(sys.argv[1]):
    row, b, value, wa = line.split()
    runs.setdefault(row, {}).setdefault(b, []).append((float(value), float(wa)))
for row, by in runs.items():
    med = {b: statistics.median(v for v, _ in by[b]) for b in by}
    print(f"{row:13} base {med['base']:9.3f}  new {med['new']:9.3f} {unit[row]:13} "
          f"new/base {med['new'] / med['base']:.3f}  WA base {by['base'][0][1]:.2f} "
          f"new {by['new'][0][1]:.2f}  (runs new: {' '.join(f'{v:.3f}' for v, _ in by['new'])})")
EOF

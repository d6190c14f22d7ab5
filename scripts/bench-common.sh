# Sourced by the side-by-side benchmark scripts (bench-replay.sh, bench-rows.sh): the two
# binaries (NEW, BASE), the work directory and round count, and the 1 M-request hot-cold
# trace of BENCHMARKS.md, generated on first use.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
new=${NEW:-$here/target/release/ssdlab}
base=${BASE:-/tmp/speed-base/ssdlab}
work=${WORK:-/tmp/bench}
rounds=${ROUNDS:-3}
trace=$work/bench.ascii
mkdir -p "$work"
for b in "$new" "$base"; do
    [ -x "$b" ] || { echo "no binary at $b (set NEW / BASE)" >&2; exit 2; }
done
if [ ! -s "$trace" ]; then
    "$new" gen-trace --workload hot-cold --capacity 64GiB --span 16GiB --size 4KiB \
        --size-max 64KiB --read-percent 40 --mean-gap-ns 200000 --requests 1M -o "$trace"
fi

# The load average, printed around and between rounds: wall-clock figures mean something
# only when the benchmark is the machine's only load.
say_load() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }
round_done() { echo "round $1 done (load $(cut -d' ' -f1 /proc/loadavg))"; }

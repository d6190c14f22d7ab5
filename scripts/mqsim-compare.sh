#!/usr/bin/env bash
# Cross-validation with MQSim (docs/mqsim.md): replays every trace of ../shared/traces,
# converted to the ASCII layout MQSim reads (scripts/mqsim-traces.py), plus a generated
# file-server trace, on MQSim with its default ssdconfig.xml and on ssdlab with the same
# parameters (imported from MQSim's ssdconfig.xml by `ssdlab import-mqsim`), and prints one Markdown table row per trace:
# mean latency (ssdlab's reads / writes split beside it; MQSim reports only the mean, min
# and max of all requests), translation reads and CMT misses of both, and the wall time of
# each simulator measured here, one run after the other, with the load average.
#
# ssdlab runs the ideal page FTL and DFTL with MQSim's CMT (233,016 entries, LRU) started
# cold (ftl.dftl.cmt_start = "cold", as MQSim starts), once reading the translation page
# per miss (the DFTL paper) and once with ftl.dftl.coalesce_misses = true (misses of one
# command share one translation read, as MQSim's do).
#
#   scripts/mqsim-compare.sh                 # MQSim from $MQSIM, else built from $MQSIM_SRC
#   MQSIM=/path/to/MQSim scripts/mqsim-compare.sh
#   MQSIM_SRC=/path/to/MQSim-checkout scripts/mqsim-compare.sh   # a work tree or a bare git dir
#   ONLY="fin postmark" scripts/mqsim-compare.sh                   # some traces only
#   FILL=1 scripts/mqsim-compare.sh          # + the file-server trace after a full --fill
#   SPLIT=1 scripts/mqsim-compare.sh         # + fin, tpcc, msr: reads only, writes only, no cache
#
# Needs: a built ssdlab (cargo build --release), g++ and make to build MQSim, python3.
# Not part of CI. Takes 5–10 minutes on an idle machine (MQSim allocates ~2 GB for its
# 512 GiB device; FILL=1 adds a 62 M-page fill per ssdlab run).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
traces=${TRACES:-$here/../shared/traces}
ssdlab=${SSDLAB:-$here/target/release/ssdlab}
work=${WORK:-/tmp/ssdlab-mqsim}
MQSIM=${MQSIM:-$work/mqsim/MQSim}
MQSIM_SRC=${MQSIM_SRC:-/work/.mirror/CMU-SAFARI+MQSim/repo}
mkdir -p "$work/traces"

if [ ! -x "$MQSIM" ]; then
    echo "building MQSim from $MQSIM_SRC into $work/mqsim" >&2
    rm -rf "$work/mqsim" && mkdir -p "$work/mqsim"
    if [ -f "$MQSIM_SRC/Makefile" ]; then
        cp -r "$MQSIM_SRC"/. "$work/mqsim/"
    else
        git --git-dir="$MQSIM_SRC" archive HEAD | tar -x -C "$work/mqsim"
    fi
    make -C "$work/mqsim" -j2 >/dev/null
    MQSIM=$work/mqsim/MQSim
fi
[ -x "$ssdlab" ] || { echo "no ssdlab binary at $ssdlab: cargo build --release" >&2; exit 2; }
mqsim_dir=$(dirname "$MQSIM")
[ -f "$mqsim_dir/ssdconfig.xml" ] || { echo "no ssdconfig.xml beside $MQSIM" >&2; exit 2; }

# ssdlab's side is imported from the very ssdconfig.xml MQSim runs (docs/mqsim.md):
# Ideal_Mapping_Table = false gives DFTL with MQSim's CMT (233,016 entries, LRU, cold);
# the same file with an ideal table gives the page FTL the script prints for contrast.
config=$work/mqsim.toml
page_config=$work/mqsim-page.toml
"$ssdlab" import-mqsim "$mqsim_dir/ssdconfig.xml" -o "$config" 2>/dev/null
sed 's|<Ideal_Mapping_Table>false<|<Ideal_Mapping_Table>true<|' "$mqsim_dir/ssdconfig.xml" \
    > "$work/ssdconfig-ideal.xml"
"$ssdlab" import-mqsim "$work/ssdconfig-ideal.xml" -o "$page_config" 2>/dev/null
grep -q '^name = "dftl"' "$config" && grep -q '^name = "page"' "$page_config" || {
    echo "import-mqsim did not give DFTL and the page FTL (is Ideal_Mapping_Table false in $mqsim_dir/ssdconfig.xml?)" >&2
    exit 2
}
# The one setting matched by hand: MQSim's DRAM moves a request's sectors at 200 MB/s
# (what the importer sets), ssdlab's buffer whole 8 KiB pages; the traces' requests
# carry 0.40-0.55 of the bytes of the pages they touch (fin 29.8 MB in 9,180 pages, tpcc
# 23.4 MB in 5,152, msr 51.0 MB in 11,289), so the same DRAM time per request needs
# 200 / 0.5 = 400 MB/s here (docs/mqsim.md, "DRAM").
matched=(--set buffer.dram_mb_s=400)

# The shared traces, each converted once to `time_ns 0 lba sectors op` (times from 0,
# addresses modulo ssdlab's logical capacity of 476 GiB, which MQSim's 476.16 GiB holds).
capacity=$((476 << 30))
list=(
    "fin ascii spc-ascii/financial1-head10k.ascii"
    "tpcc ascii spc-ascii/tpcc-small.ascii"
    "wsrch ascii spc-ascii/wsrch-small.ascii"
    "msr heimdall heimdall-msr/msr.cut.per_10k.rw_20_80.105.trace"
    "hm0 msr msr/hm_0-head1k.csv"
    "postmark disksim disksim/postmark.ascii"
    "java blkparse blkparse/java-job.blkparse.txt"
    "tencent tencent snia-tencent/cbs-1s-sample.csv"
)
for l in "${list[@]}"; do
    read -r name fmt path <<<"$l"
    [ -f "$traces/$path" ] || { echo "missing trace $traces/$path" >&2; exit 2; }
    python3 "$here/scripts/mqsim-traces.py" "$fmt" "$traces/$path" "$work/traces/$name.ascii" "$capacity"
done
# A file-server trace: Intel's file-server size mix (docs/workloads.md) at 87% reads, all
# random over the whole device, one request every 100 µs (10 K IOPS), 150 K requests.
fs_spec=''
for l in "512B 10 512B" "1KiB 5 1KiB" "2KiB 5 2KiB" "4KiB 60 4KiB" "8KiB 2 4KiB" \
    "16KiB 4 4KiB" "32KiB 4 4KiB" "64KiB 10 4KiB"; do
    set -- $l
    fs_spec="$fs_spec${fs_spec:+; }$1 weight=$2 read=87 random=100 align=$3 delay_ms=0.1"
done
"$ssdlab" gen-trace --config "$config" --access-spec "$fs_spec" --requests 150000 --seed 1 \
    -o "$work/traces/fileserver.ascii" 2>/dev/null

now() { date +%s.%N; }
secs() { python3 -c "print('%.1f' % ($2 - $1))"; }
load() { cut -d' ' -f1 /proc/loadavg; }

# Prints: mean min max (µs) translation-reads CMT-misses wall-s load.
run_mqsim() { # trace name [caching mode]
    local xml=$work/wl-$2.xml t0 t1
    cat > "$xml" <<XML
<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>${3:-WRITE_CACHE}</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs>
<Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage>
<File_Path>$1</File_Path>
<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
<Relay_Count>1</Relay_Count><Time_Unit>NANOSECOND</Time_Unit>
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>
XML
    t0=$(now)
    (cd "$work" && "$MQSIM" -i "$mqsim_dir/ssdconfig.xml" -w "$xml" >"$work/mqsim-$2.log" 2>&1)
    t1=$(now)
    python3 - "$work/wl-$2_scenario_1.xml" "$(secs "$t0" "$t1")" "$(load)" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
v = {c.tag: c.text for c in next(e for e in r.iter() if e.tag == "Host.IO_Flow")}
f = next(e for e in r.iter() if e.tag == "SSDDevice.FTL").attrib
print(f"{float(v['End_to_End_Request_Delay']):.0f} {v['Min_End_to_End_Request_Delay']} "
      f"{v['Max_End_to_End_Request_Delay']} {f['Issued_Flash_Read_CMD_For_Mapping']} "
      f"{int(f['CMT_Misses_For_Read']) + int(f['CMT_Misses_For_Write'])} {sys.argv[2]} {sys.argv[3]}")
PY
}

# Prints: mean read-mean write-mean p99 (µs) translation-reads CMT-misses
# wall-s/replay-wall-s (the whole process / the measured phase alone) load.
run_ssdlab() { # trace args... (the config: $CFG, default the imported DFTL one)
    local t0 t1 out=$work/ssdlab.json
    t0=$(now)
    "$ssdlab" run --config "${CFG:-$config}" --trace "$1" --format ascii --trace-fit wrap \
        "${matched[@]}" "${@:2}" --json "$out" >/dev/null 2>"$work/ssdlab.err"
    t1=$(now)
    python3 - "$out" "$(secs "$t0" "$t1")" "$(load)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counters"]
us = lambda s, k="mean": "%.0f" % (s[k] / 1e3) if s["count"] else "-"
print(us(r["latency_ns"]), us(r["read_latency_ns"]), us(r["write_latency_ns"]),
      us(r["latency_ns"], "p99"), c.get("ftl.dftl.trans_reads", 0), c.get("ftl.cmt.misses", 0),
      "%s/%.1f" % (sys.argv[2], r["wall_clock_measured_s"]), sys.argv[3])
PY
}

# DFTL with MQSim's CMT comes from the imported file: CMT_Capacity (2 MiB) / entry size,
# the entry being ceil((2 log2(physical pages) + sectors per page) / 8) = 9 bytes: 233,016
# entries, LRU, started cold (Address_Mapping_Unit_Page_Level.cpp; docs/mqsim.md).
dftl=()
# MQSim starts empty with its whole map on flash; ssdlab writes the pages the trace reads
# first (--precondition footprint, docs/traces.md), so reads find data as MQSim's do.
pre=(--precondition footprint)

pct() { python3 -c "print('%+.0f%%' % (100 * ($1 - $2) / $2))"; }

names=(fin tpcc wsrch msr hm0 postmark java tencent fileserver)
[ "${FILL:-0}" = 1 ] && names+=(fileserver-fill)
echo "| trace | requests (reads) | MQSim mean (min, max) | page mean (R / W) | dftl mean (R / W), p99 | dftl coalesced mean (R / W), p99 | dftl / MQSim: per miss, coalesced | translation reads: MQSim, per miss, coalesced (CMT misses MQSim / ssdlab) | wall s: MQSim, page, dftl, coalesced (ssdlab: whole run / replay alone; load) |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in "${names[@]}"; do
    case " ${ONLY:-${names[*]}} " in *" $name "*) ;; *) continue ;; esac
    p=("${pre[@]}")
    tr=$work/traces/${name%-fill}.ascii
    [ "$name" = fileserver-fill ] && p=(--fill)
    n=$(wc -l <"$tr")
    r=$(awk '$5 == 1' "$tr" | wc -l)
    read -r m_mean m_min m_max m_map m_miss m_wall m_load < <(run_mqsim "$tr" "$name")
    read -r p_mean p_r p_w _ _ _ p_wall p_load < <(CFG=$page_config run_ssdlab "$tr" "${p[@]}")
    read -r d_mean d_r d_w d_p99 d_map d_miss d_wall d_load < <(run_ssdlab "$tr" "${dftl[@]}" "${p[@]}")
    read -r c_mean c_r c_w c_p99 c_map _ c_wall c_load < <(run_ssdlab "$tr" "${dftl[@]}" \
        --set ftl.dftl.coalesce_misses=true "${p[@]}")
    printf '| %s | %s (%s) | %s (%s, %s) | %s (%s / %s) | %s (%s / %s), %s | %s (%s / %s), %s | %s, %s | %s, %s, %s (%s / %s) | %s, %s, %s, %s (%s–%s) |\n' \
        "$name" "$n" "$r" "$m_mean" "$m_min" "$m_max" "$p_mean" "$p_r" "$p_w" \
        "$d_mean" "$d_r" "$d_w" "$d_p99" "$c_mean" "$c_r" "$c_w" "$c_p99" \
        "$(pct "$d_mean" "$m_mean")" "$(pct "$c_mean" "$m_mean")" \
        "$m_map" "$d_map" "$c_map" "$m_miss" "$d_miss" \
        "$m_wall" "$p_wall" "$d_wall" "$c_wall" \
        "$(printf '%s\n' "$m_load" "$p_load" "$d_load" "$c_load" | sort -n | head -1)" \
        "$(printf '%s\n' "$m_load" "$p_load" "$d_load" "$c_load" | sort -n | tail -1)"
done

[ "${SPLIT:-0}" = 1 ] || exit 0
# SPLIT=1: where the write path's difference shows (docs/mqsim.md, "Why they differ"):
# each trace's reads alone and writes alone, and the whole trace with MQSim's cache off
# against ssdlab without a buffer (both write through to flash). DFTL cold, coalesced.
echo
echo "| trace | reads only: MQSim / dftl | writes only: MQSim / dftl | no cache: MQSim / dftl |"
echo "|---|---|---|---|"
cold=("${dftl[@]}" --set ftl.dftl.coalesce_misses=true "${pre[@]}")
for name in fin tpcc msr; do
    tr=$work/traces/$name.ascii
    awk '$5 == 1' "$tr" > "$work/$name-reads.ascii"
    awk '$5 == 0' "$tr" > "$work/$name-writes.ascii"
    read -r mr _ < <(run_mqsim "$work/$name-reads.ascii" "$name-reads")
    read -r cr _ < <(run_ssdlab "$work/$name-reads.ascii" "${cold[@]}")
    read -r mw _ < <(run_mqsim "$work/$name-writes.ascii" "$name-writes")
    read -r cw _ < <(run_ssdlab "$work/$name-writes.ascii" "${cold[@]}")
    read -r mo _ < <(run_mqsim "$tr" "$name-nocache" TURNED_OFF)
    read -r co _ < <(run_ssdlab "$tr" "${cold[@]}" --buffer none)
    printf '| %s | %s / %s | %s / %s | %s / %s |\n' "$name" "$mr" "$cr" "$mw" "$cw" "$mo" "$co"
done

#!/usr/bin/env bash
# Cross-validation with MQSim (docs/mqsim.md): replays three traces from ../shared/traces on
# MQSim with its default ssdconfig.xml and on ssdlab with the same parameters
# (scripts/mqsim-defaults.toml), and prints mean latency side by side with MQSim's min and
# max, ssdlab's p99 and max, and the translation reads and CMT misses of both. The matched
# configuration is DFTL with MQSim's CMT (233,016 entries, LRU) started cold
# (ftl.dftl.cmt_start = "cold": empty CMT when the replay begins, as MQSim starts); the
# ideal page FTL and the warm DFTL are printed for contrast.
#
#   scripts/mqsim-compare.sh                 # MQSim from $MQSIM, else built from $MQSIM_SRC
#   MQSIM=/path/to/MQSim scripts/mqsim-compare.sh
#   MQSIM_SRC=/path/to/MQSim-checkout scripts/mqsim-compare.sh   # a work tree or a bare git dir
#
# Needs: a built ssdlab (cargo build --release), g++ and make to build MQSim, python3.
# Not part of CI. Takes a few minutes (MQSim allocates ~2 GB for its 512 GiB device).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
traces=${TRACES:-$here/../shared/traces}
ssdlab=${SSDLAB:-$here/target/release/ssdlab}
work=${WORK:-/tmp/ssdlab-mqsim}
MQSIM=${MQSIM:-$work/mqsim/MQSim}
MQSIM_SRC=${MQSIM_SRC:-/work/.mirror/CMU-SAFARI+MQSim/repo}
mkdir -p "$work"

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

# MQSim reads the SSD-simulator ASCII layout: time_ns dev lba_sectors size_sectors op(1=read).
fin=$traces/spc-ascii/financial1-head10k.ascii
tpcc=$traces/spc-ascii/tpcc-small.ascii
msr=$work/msr-heimdall.ascii
awk '{ printf "%.0f %d %d %d %d\n", $1 * 1e6, $2, $3 / 512, ($4 + 511) / 512, $5 }' \
    "$traces/heimdall-msr/msr.cut.per_10k.rw_20_80.105.trace" > "$msr"

# Prints: mean min max (µs) reads/writes translation-reads CMT-misses flash-programs.
run_mqsim() { # trace name [caching mode]
    local xml=$work/wl-$2.xml
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
    (cd "$work" && "$MQSIM" -i "$mqsim_dir/ssdconfig.xml" -w "$xml" >"$work/mqsim-$2.log" 2>&1)
    python3 - "$work/wl-$2_scenario_1.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
v = {c.tag: c.text for c in next(e for e in r.iter() if e.tag == "Host.IO_Flow")}
f = next(e for e in r.iter() if e.tag == "SSDDevice.FTL").attrib
print(f"{float(v['End_to_End_Request_Delay']):.0f} {v['Min_End_to_End_Request_Delay']} "
      f"{v['Max_End_to_End_Request_Delay']} {v['Read_Request_Count']}/{v['Write_Request_Count']} "
      f"{f['Issued_Flash_Read_CMD_For_Mapping']} "
      f"{int(f['CMT_Misses_For_Read']) + int(f['CMT_Misses_For_Write'])} "
      f"{int(f['Issued_Flash_Program_CMD']) + int(f['Issued_Flash_Multiplane_Program_CMD'])}")
PY
}

# Prints: mean p99 max (µs) translation-reads CMT-misses flash-programs-in-the-replay.
run_ssdlab() { # trace format ftl [extra]
    "$ssdlab" run --config "$here/scripts/mqsim-defaults.toml" --trace "$1" --format "$2" \
        --trace-fit wrap --precondition footprint --ftl "$3" "${@:4}" --json - 2>/dev/null |
        python3 -c '
import json, sys
r = json.load(sys.stdin)
l, c = r["latency_ns"], r["counters"]
print("%.0f %.0f %.0f %d %d %d" % (l["mean"] / 1e3, l["p99"] / 1e3, l["max"] / 1e3,
      c.get("ftl.dftl.trans_reads", 0), c.get("ftl.cmt.misses", 0),
      r["nand_program_pages"] - r["buffer_end_flush_pages"]))'
}

# MQSim's CMT holds CMT_Capacity (2 MiB) / entry size entries, the entry being
# ceil((2 log2(physical pages) + sectors per page) / 8) = ceil((2 * 26 + 16) / 8) = 9 bytes:
# 233,016 entries (Address_Mapping_Unit_Page_Level.cpp; docs/mqsim.md).
dftl=(dftl --set ftl.dftl.cmt_entries=233016 --set 'ftl.dftl.cmt_policy="lru"')

pct() { python3 -c "print('%+.0f%%' % (100 * ($1 - $2) / $2))"; }

printf '%-5s | %-22s | %-11s | %-11s | %-24s | %s\n' trace "MQSim mean min max" \
    "page mean/p99" "dftl warm" "dftl cold mean/p99/max" "dftl vs MQSim"
for t in fin:"$fin":ascii tpcc:"$tpcc":ascii msr:"$msr":ascii; do
    name=${t%%:*}; rest=${t#*:}; path=${rest%:*}; fmt=${rest##*:}
    read -r m_mean m_min m_max m_rw m_map m_miss m_prog < <(run_mqsim "$path" "$name")
    read -r p_mean p_p99 _ < <(run_ssdlab "$path" "$fmt" page)
    read -r w_mean w_p99 _ < <(run_ssdlab "$path" "$fmt" "${dftl[@]}" --set 'ftl.dftl.cmt_start="warm"')
    read -r c_mean c_p99 c_max c_map c_miss c_prog < <(run_ssdlab "$path" "$fmt" "${dftl[@]}" --set 'ftl.dftl.cmt_start="cold"')
    printf '%-5s | %-22s | %-11s | %-11s | %-24s | cold %s, warm %s\n' "$name" \
        "$m_mean $m_min $m_max" "$p_mean/$p_p99" "$w_mean/$w_p99" "$c_mean/$c_p99/$c_max" \
        "$(pct "$c_mean" "$m_mean")" "$(pct "$w_mean" "$m_mean")"
    printf '      | MQSim: %s reads/writes, %s translation reads, %s CMT misses, %s programs\n' \
        "$m_rw" "$m_map" "$m_miss" "$m_prog"
    printf '      | ssdlab cold: %s translation reads, %s CMT misses, %s programs during the replay\n' \
        "$c_map" "$c_miss" "$c_prog"
done

[ "${SPLIT:-0}" = 1 ] || exit 0
# SPLIT=1: where the write path's difference shows (docs/mqsim.md, "Why they differ"):
# each trace's reads alone and writes alone, and the whole trace with MQSim's cache off
# against ssdlab without a buffer (both write through to flash).
echo
printf '%-5s | %-24s | %-24s | %-24s\n' trace "reads only: MQSim / cold" "writes only: MQSim / cold" "no cache: MQSim / cold"
for t in fin:"$fin" tpcc:"$tpcc" msr:"$msr"; do
    name=${t%%:*}; path=${t#*:}
    awk '$5 == 1' "$path" > "$work/$name-reads.ascii"
    awk '$5 == 0' "$path" > "$work/$name-writes.ascii"
    cold=("${dftl[@]}" --set 'ftl.dftl.cmt_start="cold"')
    read -r mr _ < <(run_mqsim "$work/$name-reads.ascii" "$name-reads")
    read -r cr _ < <(run_ssdlab "$work/$name-reads.ascii" ascii "${cold[@]}")
    read -r mw _ < <(run_mqsim "$work/$name-writes.ascii" "$name-writes")
    read -r cw _ < <(run_ssdlab "$work/$name-writes.ascii" ascii "${cold[@]}")
    read -r mo _ < <(run_mqsim "$path" "$name-nocache" TURNED_OFF)
    read -r co _ < <(run_ssdlab "$path" ascii "${cold[@]}" --buffer none)
    printf '%-5s | %-24s | %-24s | %-24s\n' "$name" "$mr / $cr" "$mw / $cw" "$mo / $co"
done

#!/usr/bin/env bash
# Cross-validation with MQSim (docs/mqsim.md): replays three traces from ../shared/traces on
# MQSim with its default ssdconfig.xml and on ssdlab with the same parameters
# (scripts/mqsim-defaults.toml), and prints mean latency (and ssdlab's p99) side by side.
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

run_mqsim() { # trace name
    local xml=$work/wl-$2.xml
    cat > "$xml" <<XML
<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
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
f = next(e for e in r.iter() if e.tag == "Host.IO_Flow")
v = {c.tag: c.text for c in f}
print(f"{float(v['End_to_End_Request_Delay']):.0f} - {v['Read_Request_Count']}/{v['Write_Request_Count']}")
PY
}

run_ssdlab() { # trace format ftl [extra]
    "$ssdlab" run --config "$here/scripts/mqsim-defaults.toml" --trace "$1" --format "$2" \
        --trace-fit wrap --precondition footprint --ftl "$3" "${@:4}" --json - 2>/dev/null |
        python3 -c '
import json, sys
r = json.load(sys.stdin)
l = r["latency_ns"]
print("%.0f %.0f" % (l["mean"] / 1e3, l["p99"] / 1e3))'
}

printf '%-12s %-26s %-14s %-14s %s\n' trace "MQSim mean us (reads/writes)" "page mean/p99" "dftl mean/p99" ""
for t in fin:"$fin":ascii tpcc:"$tpcc":ascii msr:"$msr":ascii; do
    name=${t%%:*}; rest=${t#*:}; path=${rest%:*}; fmt=${rest##*:}
    m=$(run_mqsim "$path" "$name")
    p=$(run_ssdlab "$path" "$fmt" page)
    d=$(run_ssdlab "$path" "$fmt" dftl --set ftl.dftl.cmt_entries=2097152 --set 'ftl.dftl.cmt_policy="lru"')
    printf '%-12s %-26s %-14s %-14s\n' "$name" "$m" "${p// //}" "${d// //}"
done

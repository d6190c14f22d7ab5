#!/usr/bin/env python3
"""Converts a block trace to the ASCII layout MQSim reads, for scripts/mqsim-compare.sh.

    mqsim-traces.py FORMAT IN OUT CAPACITY_BYTES

Output lines: `time_ns 0 lba_sectors size_sectors op` (op 1 = read, 0 = write; 512 B
sectors), times relative to the earliest request and sorted (stably), addresses modulo the
logical capacity (a request that would then run past the end is moved back to end there),
requests without a length (flushes) and trims dropped. Both simulators replay this one
file, so they see the same requests at the same times and addresses; the device field is
dropped (volumes share one address space, as ssdlab and MQSim merge them anyway).

FORMAT: ascii (time_ns dev lba sectors op), heimdall (time_ms dev offset_bytes size_bytes
op), msr (FILETIME 100 ns ticks, ..., Read/Write, offset_bytes, size_bytes),
disksim (time_ms dev blkno sectors flags, bit 0 = read), blkparse (Q events, rwbs R/W),
tencent (timestamp_s,offset_sectors,size_sectors,type 0 = read,volume).
"""
import sys

SECTOR = 512


def parse(fmt, path):
    """Yields (time_ns, offset_bytes, size_bytes, is_read)."""
    with open(path) as f:
        for line in f:
            p = line.replace(",", " ").split()
            if not p or not (p[0][0].isdigit() or p[0][0] == "."):
                continue  # header or blank line
            if fmt == "ascii":
                yield int(float(p[0])), int(p[2]) * SECTOR, int(p[3]) * SECTOR, p[4] == "1"
            elif fmt == "heimdall":
                yield round(float(p[0]) * 1e6), int(p[2]), int(p[3]), p[4] == "1"
            elif fmt == "msr":
                yield int(p[0]) * 100, int(p[4]), int(p[5]), p[3].lower() == "read"
            elif fmt == "disksim":
                yield round(float(p[0]) * 1e6), int(p[2]) * SECTOR, int(p[3]) * SECTOR, int(p[4]) & 1 == 1
            elif fmt == "blkparse":
                # maj min cpu seq time pid action rwbs sector + count [process]
                if len(p) < 11 or p[6] != "Q" or p[9] != "+":
                    continue
                rwbs = p[7]
                if "D" in rwbs or not ("R" in rwbs or "W" in rwbs):
                    continue  # trims, flushes without data, others
                yield round(float(p[4]) * 1e9), int(p[8]) * SECTOR, int(p[10]) * SECTOR, "R" in rwbs and "W" not in rwbs
            elif fmt == "tencent":
                yield int(p[0]) * 1_000_000_000, int(p[1]) * SECTOR, int(p[2]) * SECTOR, p[3] == "0"
            else:
                sys.exit(f"mqsim-traces.py: unknown format {fmt!r}")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    fmt, src, out, cap = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cap_sectors = cap // SECTOR
    reqs = [r for r in parse(fmt, src) if r[2] > 0]
    if not reqs:
        sys.exit(f"mqsim-traces.py: no requests in {src}")
    reqs.sort(key=lambda r: r[0])
    t0 = reqs[0][0]
    with open(out, "w") as f:
        for t, off, size, rd in reqs:
            lba = off // SECTOR
            n = (off + size + SECTOR - 1) // SECTOR - lba
            lba %= cap_sectors
            if lba + n > cap_sectors:
                lba = cap_sectors - n
            f.write(f"{t - t0} 0 {lba} {n} {1 if rd else 0}\n")


main()

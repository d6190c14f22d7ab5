#!/usr/bin/env python3
"""Mechanical check of registry/claims.toml, the claims registry v1 carried as data.

Usage:
    python3 registry/check.py [CLAIMS_CSV]

Without an argument only the file's internal consistency is checked (ids, cross
references, counts per paper and per kind, schema). With the path of the
registry's original claims.csv it also checks that the facts carried here (ids,
paper references, paper values, kinds, vague flags, experiments and the number
of grid points of each row) match that file exactly.
"""
import csv
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOML = HERE / "claims.toml"

PAPERS = {"M": ("000", 56), "N": ("001", 17), "C": ("002", 18), "A": ("003", 21), "H": ("004", 18)}
KINDS = {"value": 36, "ranking": 21, "ratio": 20, "direction": 20, "threshold": 19, "trend": 13, "crossover": 1}
EXPERIMENTS_PER_PAPER = {"M": 12, "N": 4, "C": 3, "A": 3, "H": 4}
CLAIM_FIELDS = {
    "id": str, "paper": str, "title": str, "paper_ref": str, "statement": str,
    "paper_values": str, "kind": str, "criterion": str, "experiment": str,
    "experiments": list, "row_grid": str, "points": int, "robust_rule": str,
    "vague": bool, "vague_reading": str,
}
CLAIM_OPTIONAL = {"contradiction": str, "notes": str}
EXP_FIELDS = {"id": str, "paper": str, "title": str, "setup": str, "claims": list, "grid_note": str}
PARAM_FIELDS = {"name": str, "levels": list, "why": str}
# snake_case; a unit, if any, comes last (…_us, …_kib, …_percent, …_mb_s).
PARAM_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def claim_key(cid):
    return ("MNCAH".index(cid[0]), int(cid[1:]))


def points_in_text(free_parameters):
    """The grid size a CSV row states for itself; 1 when it states none."""
    row = free_parameters.split("|| this row:")[-1]
    m = re.search(r"= ([\d,]+) points", row) or re.search(r"([\d,]+) points", row)
    return int(m.group(1).replace(",", "")) if m else 1


def short_ref(ref):
    return re.sub(r"(00[0-4])_[0-9a-f]{16}\.txt", r"\1", ref)


def check_fields(obj, required, optional, what):
    for key, typ in required.items():
        assert key in obj, f"{what}: missing field {key!r}"
        assert isinstance(obj[key], typ), f"{what}: field {key!r} should be {typ.__name__}"
    for key, typ in optional.items():
        if key in obj:
            assert isinstance(obj[key], typ), f"{what}: field {key!r} should be {typ.__name__}"
    extra = set(obj) - set(required) - set(optional)
    assert not extra, f"{what}: unknown fields {sorted(extra)}"


def main():
    data = tomllib.loads(TOML.read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert data["issued"] == "2026-11-27"
    assert isinstance(data["source"], str) and data["source"]

    rules = data["rule"]
    assert [r["id"] for r in rules] == [f"0.{i}" for i in range(1, 10)], "rules 0.1–0.9"
    for r in rules:
        check_fields(r, {"id": str, "title": str, "text": str}, {}, f"rule {r['id']}")

    papers = data["paper"]
    assert [(p["prefix"], p["seed"]) for p in papers] == [(k, v[0]) for k, v in PAPERS.items()]

    inv = data["invariant"]
    assert [d["id"] for d in inv] == [f"D{i}" for i in range(1, 10)], "invariants D1–D9"

    claims = data["claim"]
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids)), "claim ids must be unique"
    assert ids == sorted(ids, key=claim_key), "claims in registry order"
    by_id = {c["id"]: c for c in claims}

    incs = data["inconsistency"]
    assert [d["id"] for d in incs] == [f"6.{i}" for i in range(1, 16)], "inconsistencies 6.1–6.15"
    for d in incs:
        check_fields(d, {"id": str, "rows": list, "text": str}, {}, f"inconsistency {d['id']}")
        for row in d["rows"]:
            assert row in by_id, f"inconsistency {d['id']} names unknown row {row}"

    exps = data["experiment"]
    exp_ids = [e["id"] for e in exps]
    assert len(exps) == 26, f"26 experiments expected, found {len(exps)}"
    assert len(set(exp_ids)) == 26, "experiment ids must be unique"
    assert Counter(e["paper"] for e in exps) == Counter(EXPERIMENTS_PER_PAPER), "experiments per paper"
    exp_by_id = {e["id"]: e for e in exps}
    for e in exps:
        check_fields(e, EXP_FIELDS, {"parameter": list}, e["id"])
        assert e["id"].startswith(f"EXP-{e['paper']}"), f"{e['id']}: paper {e['paper']}"
        for p in e.get("parameter", []):
            what = f"{e['id']} parameter {p.get('name')}"
            check_fields(p, PARAM_FIELDS, {"applies_to": str}, what)
            assert PARAM_NAME.match(p["name"]), f"{what}: not snake_case"
            assert p["levels"] and all(isinstance(x, str) and x for x in p["levels"]), f"{what}: levels"
        names = [p["name"] for p in e.get("parameter", [])]
        assert len(names) == len(set(names)), f"{e['id']}: duplicate parameter names"

    referencing = {e: [] for e in exp_ids}
    inc_ids = {d["id"] for d in incs}
    for c in claims:
        cid = c["id"]
        check_fields(c, CLAIM_FIELDS, CLAIM_OPTIONAL, cid)
        assert c["paper"] == cid[0] and cid[1:].isdigit(), f"{cid}: paper prefix"
        assert c["kind"] in KINDS, f"{cid}: kind {c['kind']!r}"
        assert c["experiments"], f"{cid}: no experiments"
        assert c["experiment"] == c["experiments"][0], f"{cid}: experiment must be the first of experiments"
        for e in c["experiments"]:
            assert e in exp_by_id, f"{cid}: unknown experiment {e}"
            referencing[e].append(cid)
        assert c["points"] >= 1, f"{cid}: points"
        assert c["vague"] == bool(c["vague_reading"]), f"{cid}: vague and vague_reading disagree"
        con = c.get("contradiction", "")
        if con:
            num = con.split(":")[0]
            assert num in inc_ids, f"{cid}: contradiction cites unknown item {num}"
        for field in ("title", "statement", "criterion", "row_grid", "robust_rule"):
            assert c[field].strip(), f"{cid}: empty {field}"

    for e in exps:
        want = sorted(referencing[e["id"]], key=claim_key)
        assert e["claims"] == want, f"{e['id']}: claims {e['claims']} but referenced by {want}"

    per_paper = Counter(c["paper"] for c in claims)
    per_kind = Counter(c["kind"] for c in claims)
    print("claims per paper:", " ".join(f"{p} {per_paper[p]}" for p in PAPERS), f"(total {len(claims)})")
    print("claims per kind: ", " ".join(f"{k} {per_kind[k]}" for k in KINDS))
    print("experiments:", len(exps), " rules:", len(rules), " invariants:", len(inv), " inconsistencies:", len(incs))
    assert len(claims) == 130, f"130 claims expected, found {len(claims)}"
    for p, (_, n) in PAPERS.items():
        assert per_paper[p] == n, f"paper {p}: {per_paper[p]} claims, expected {n}"
    for k, n in KINDS.items():
        assert per_kind[k] == n, f"kind {k}: {per_kind[k]} claims, expected {n}"

    if len(sys.argv) > 1:
        rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
        assert [r["id"] for r in rows] == ids, "claim ids differ from the CSV's"
        for r in rows:
            c = by_id[r["id"]]
            cid = r["id"]
            assert c["paper_values"] == r["paper_values"], f"{cid}: paper_values differ from the CSV"
            assert c["kind"] == r["kind"], f"{cid}: kind differs from the CSV"
            assert c["paper_ref"] == short_ref(r["paper_ref"]), f"{cid}: paper_ref differs from the CSV"
            assert c["vague"] == r["vague"].strip().lower().startswith("yes"), f"{cid}: vague flag"
            csv_exps = [x.strip() for x in r["experiments"].split(",") if x.strip()]
            assert c["experiments"] == csv_exps, f"{cid}: experiments {c['experiments']} vs CSV {csv_exps}"
            want = points_in_text(r["free_parameters"])
            assert c["points"] == want, f"{cid}: points {c['points']} but the CSV row says {want}"
        print(f"facts match {sys.argv[1]}: ids, paper_ref, paper_values, kind, vague, experiments, points")
    print("OK")


if __name__ == "__main__":
    main()

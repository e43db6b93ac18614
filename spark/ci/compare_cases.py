"""Compare what two crosstalk cases say: sightings, provenance, PII findings, scope and status.

Usage: compare_cases.py CROSSTALK SINGLE_DB SPARK_DB [--allow-scope-keys K,...]
Exits 1 naming every difference; prints the counts compared.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

# Keys of `status --json` that describe the case itself rather than what it found.
STATUS_CASE_KEYS = {"case_id", "schema_version", "audit_entries", "audit_head", "detection", "incident", "clock", "log_evidence"}


def run(crosstalk: str, db: str, *args: str):
    res = subprocess.run(shlex.split(crosstalk) + list(args) + ["--db", db, "--json"], capture_output=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"crosstalk {' '.join(args)} --db {db} exited {res.returncode}: {res.stderr.decode('utf-8', 'replace').strip()}")
    return json.loads(res.stdout)


def keyed(rows, key):
    return sorted(rows, key=lambda r: json.dumps([r.get(k) for k in key]))


def main() -> int:
    crosstalk, single, spark = sys.argv[1:4]
    problems: list[str] = []
    counts = {}

    def same(name, a, b):
        if a != b:
            sa, sb = json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)
            at = next((i for i in range(min(len(sa), len(sb))) if sa[i] != sb[i]), min(len(sa), len(sb)))
            problems.append(f"{name}: differ at char {at}: single …{sa[max(0, at - 120):at + 120]}… spark …{sb[max(0, at - 120):at + 120]}…")

    s1, s2 = run(crosstalk, single, "sightings"), run(crosstalk, spark, "sightings")
    counts["sightings"] = len(s1)
    same("sightings (request id, class, marker, source)", s1, s2)
    p1, p2 = run(crosstalk, single, "provenance"), run(crosstalk, spark, "provenance")
    counts["provenance"] = len(p1)
    # The job does not record an ambiguous source's candidates (migration 013): a Spark case says
    # they were not recorded (null, an open item in every notice), never a list; a named or unknown
    # source has none in either case ([]).
    recorded = [r.get("possible_sources") for r in p2 if isinstance(r, dict) and r.get("source_status") == "ambiguous" and r.get("possible_sources") is not None]
    if recorded:
        problems.append(f"provenance: the Spark case gives possible_sources {recorded[0]}; the job does not record them, so they must be null")
    drop_candidates = lambda rows: [{k: v for k, v in r.items() if k != "possible_sources"} for r in rows] if isinstance(rows, list) else rows  # noqa: E731
    same("provenance", drop_candidates(p1), drop_candidates(p2))
    # value_ref is an HMAC under each case's own random key (never comparable across cases).
    strip_ref = lambda rows: [{k: v for k, v in r.items() if k != "value_ref"} for r in rows] if isinstance(rows, list) else rows  # noqa: E731
    i1, i2 = strip_ref(run(crosstalk, single, "pii")), strip_ref(run(crosstalk, spark, "pii"))
    counts["pii"] = len(i1) if isinstance(i1, list) else i1
    same("pii findings", i1, i2)
    def unexamined(a, b, name):
        n1, n2 = a.pop("duplicate_lines_not_examined", 0), b.pop("duplicate_lines_not_examined", 0)
        # Each such line, named (status --json): the Spark case may name more, as it may count more.
        a.pop("duplicate_lines_not_examined_list", None)
        b.pop("duplicate_lines_not_examined_list", None)
        if n2 < n1:
            problems.append(f"{name}: the Spark case leaves {n2} duplicate lines not examined, the single machine {n1}: fewer is an all-clear over lines nobody read")

    c1, c2 = run(crosstalk, single, "scope"), run(crosstalk, spark, "scope")
    for c in (c1, c2):
        c.get("detection", {}).pop("last_scan_at", None)  # when each case's detection ran
    # The job does not count the responses the boilerplate rule set aside: a Spark case says it
    # does not know (null), never a number (docs/scale.md).
    b2 = c2.get("detection", {}).pop("provenance_boilerplate_responses", None)
    c1.get("detection", {}).pop("provenance_boilerplate_responses", None)
    if b2 is not None:
        problems.append(f"scope --json: the Spark case gives provenance_boilerplate_responses {b2}; the job does not count them, so it must be null")
    # Nor the answers in a script written without spaces that verbatim text could not compare
    # (migration 020): unknown (null) in a Spark case, never a number.
    n2 = c2.get("detection", {}).pop("provenance_not_comparable_responses", None)
    c1.get("detection", {}).pop("provenance_not_comparable_responses", None)
    if n2 is not None:
        problems.append(f"scope --json: the Spark case gives provenance_not_comparable_responses {n2}; the job does not count them, so it must be null")
    # Duplicate lines are read again from the evidence to name leaking retries: the job carries
    # them (duplicates/) and the Spark case stores their lines, so both cases must name the same.
    # Fail-closed, not yet equal: a Spark case of OTLP traces leaves 1 retry line of the generated
    # incident not examined that the single machine reads (under investigation); it may count more
    # such lines than the single machine, never fewer. Leaks in retries must be the same.
    unexamined(c1, c2, "scope --json")
    same("scope --json", c1, c2)
    counts["scope_contaminated_responses"] = c1.get("contaminated_responses")
    counts["scope_at_risk_responses"] = c1.get("at_risk_responses")
    st1, st2 = run(crosstalk, single, "status"), run(crosstalk, spark, "status")
    unexamined(st1, st2, "status --json")
    same("status --json", {k: v for k, v in st1.items() if k not in STATUS_CASE_KEYS}, {k: v for k, v in st2.items() if k not in STATUS_CASE_KEYS})
    counts["records"] = st1.get("records")
    print(json.dumps({"compared": counts, "differences": len(problems)}))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

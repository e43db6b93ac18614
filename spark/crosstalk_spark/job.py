"""crosstalk-spark: audit billions of logged responses on Apache Spark, with the answers of one machine.

Stages:
  1. plan     the shards, in the order `crosstalk ingest logs` reads them, and the sets read
              together (crosstalk extract --plan: formats decided as ingest decides them);
  2. extract  one task per shard (or set) runs `crosstalk extract` (the per-record map through
              crosstalk's own decoder, any log format: tokens, PII hashes, fingerprints, line
              offsets and CRCs) into Parquet;
  3. records  one request id per source: the first occurrence in reading order (shard, then
              the order ingest stores its records) is the record, later ones are duplicates;
  4. findings Spark SQL joins: marker tokens with the registry (sightings), PII values across
              sessions, fingerprint postings (provenance candidates, boilerplate), and the
              questions scope asks of every record (totals, at-risk, sessions served);
  5. verify   the candidates of each response through `crosstalk provenance-verify`, in time
              order within independent groups, which reads their lines back from the shards and
              runs scan's own chain rule and verification;
  6. write    findings/ (Parquet and manifest.json): small whatever the input size, ready for
              `crosstalk ingest findings`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from . import __version__

# 3: an echo is the marker itself in the prompt (findings of 2 took its hex digits alone for one).
# 5: duplicates/ lists every line repeating a request id (findings of 4 held none, so a retry's leak was never judged).
# 6: registered markers are matched whole (an echo needs the prompt's hex run to end where the marker ends: prompt_whole).
# 8: the manifest's `tables` records each table's rows and its part files with their rows, so that a partial copy or a
#    part file present twice is refused, never read as fewer or more findings.
FINDINGS_FORMAT = "crosstalk-findings/8"
EXTRACT_FORMAT = "crosstalk-extract/2"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="crosstalk-spark", description=__doc__.split("\n")[0])
    p.add_argument("shards", nargs="+", help="log shards: files, directories or globs (local or file://), or object-store URIs")
    p.add_argument("--registry", required=True, help="a registry export: `crosstalk registry-export --db CASE --out DIR`")
    p.add_argument("--out", required=True, help="job directory: extracts/ and findings/ are written under it")
    p.add_argument("--crosstalk", required=True, help='how executors run crosstalk, e.g. "/usr/bin/node /opt/crosstalk/bin/run.js"')
    p.add_argument("--master", help="Spark master URL (default: what spark-submit or the environment gives)")
    p.add_argument("--pool-tokens", type=int, help="the serving stack's KV pool: at-risk responses and sessions served are computed for it")
    p.add_argument("--advertised-tokens", type=int)
    p.add_argument("--min-words", type=int, default=12)
    p.add_argument("--boilerplate-tenants", type=int, default=3)
    p.add_argument("--source", default="default", help="log source label: a request id is unique within it")
    # How the lines are read: as `crosstalk ingest logs` takes it (the same flags, passed to crosstalk extract).
    p.add_argument("--log-format", default="auto", help="as `crosstalk ingest logs --log-format` (auto: decided per shard)")
    p.add_argument("--map", action="append", default=[], help="as `crosstalk ingest logs --map` (repeatable)")
    p.add_argument("--assume-tz", help="as `crosstalk ingest logs --assume-tz`")
    p.add_argument("--tenant-attribute", action="append", default=[], help="as `crosstalk ingest logs --tenant-attribute` (repeatable)")
    p.add_argument("--custom-id-pattern", help="as `crosstalk ingest logs --custom-id-pattern`")
    p.add_argument("--batch-ts", help="as `crosstalk ingest logs --batch-ts`")
    p.add_argument("--shuffle-partitions", type=int, default=16)
    p.add_argument("--verify-partitions", type=int, default=0, help="partitions of provenance verification (default: the shuffle partitions)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable), e.g. spark.executor.memory=1g")
    a = p.parse_args(argv)
    if a.advertised_tokens is not None and a.pool_tokens is None:
        p.error("--advertised-tokens needs --pool-tokens")
    # The word fingerprints find every verbatim run of 12 or more words, a shorter one only by chance.
    if a.min_words < 12 or a.boilerplate_tenants < 2:
        p.error("--min-words must be at least 12 (the run the word fingerprints always find) and --boilerplate-tenants at least 2")
    return a


def format_flags(a: argparse.Namespace) -> list[str]:
    """The reading flags, as crosstalk extract takes them."""
    out = [f"--log-format={a.log_format}"] + [f"--map={m}" for m in a.map] + [f"--tenant-attribute={t}" for t in a.tenant_attribute]
    for flag, value in (("--assume-tz", a.assume_tz), ("--custom-id-pattern", a.custom_id_pattern), ("--batch-ts", a.batch_ts)):
        if value is not None:
            out.append(f"{flag}={value}")
    return out


def plan_units(crosstalk: str, shards: list[str], flags: list[str]) -> list[list[str]]:
    """Local shards in ingest's reading order, in the sets read together (crosstalk decides formats and expands paths
    itself); remote URIs as given, sorted, each alone (copy or mount remote shards of formats that join files)."""
    local = [s for s in shards if s.startswith("file:") or "://" not in s]
    remote = [s for s in shards if s not in local]
    units: list[list[str]] = []
    if local:
        paths = [s[len("file://"):] if s.startswith("file://") else s for s in local]
        # "--" ends the flags: --map and --tenant-attribute take several values and would take the paths too.
        res = subprocess.run(shlex.split(crosstalk) + ["extract", "--plan", "--json", *flags, "--", *paths], capture_output=True, check=False)
        if res.returncode != 0:
            raise SystemExit(f"crosstalk extract --plan failed: {res.stderr.decode('utf-8', 'replace').strip()}")
        units += [[os.path.abspath(p) for p in u["files"]] for u in json.loads(res.stdout)["units"]]
    return units + [[r] for r in sorted(remote)]


def file_uri(path: str) -> str:
    from pathlib import Path

    return path if "://" in path else Path(path).absolute().as_uri()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from pyspark import StorageLevel
    from pyspark.sql import SparkSession, Window
    from pyspark.sql import functions as F

    from .markers import sightings as find_sightings
    from .pii import pii_findings
    from .provenance import candidates as find_candidates
    from .provenance import groups as verify_groups
    from .tasks import extract_partition, verify_partition

    t0 = time.time()
    timings: dict[str, float] = {}
    builder = SparkSession.builder.appName("crosstalk-audit").config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
    if args.master:
        builder = builder.master(args.master)
    for kv in args.conf:
        k, _, v = kv.partition("=")
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    out = os.path.abspath(args.out) if "://" not in args.out else args.out
    extracts_dir = f"{out}/extracts"
    findings_dir = f"{out}/findings"
    os.makedirs(extracts_dir, exist_ok=True) if "://" not in out else None
    tmp = tempfile.mkdtemp(prefix="crosstalk-spark-")
    # The executors run this very job's code (tasks.py), shipped with it: an older copy installed there cannot answer instead.
    sc.addPyFile(_package_zip(tmp))

    registry_dir = os.path.abspath(args.registry)
    with open(os.path.join(registry_dir, "registry.json"), encoding="utf-8") as f:
        registry_meta = json.load(f)
    registry = spark.read.parquet(file_uri(os.path.join(registry_dir, "registry.parquet")))

    # ---------------------------------------------------------------- 1-2: plan and extract
    flags = format_flags(args)
    units = plan_units(args.crosstalk, args.shards, flags)
    if not units:
        raise SystemExit("no shards")
    canaries = None
    if registry_meta.get("unconventional_sha256"):
        # Registered markers outside the CANARY-<hex> convention are matched during extraction, as ingest matches them.
        sc.addFile(os.path.join(registry_dir, "registry.parquet"))
        canaries = "registry.parquet"
    todo, first = [], 0
    for u in units:
        todo.append((first, [file_uri(p) for p in u]))
        first += len(u)
    crosstalk, ex_out = args.crosstalk, extracts_dir
    rdd = sc.parallelize(todo, len(todo))
    extracted = rdd.mapPartitions(lambda it: extract_partition(crosstalk, ex_out, flags, canaries, it)).collect()
    extracted.sort(key=lambda e: e["file_idx"])
    timings["extract_s"] = time.time() - t0

    # ---------------------------------------------------------------- 3: records, in ingest's order
    t1 = time.time()
    idx = spark.createDataFrame([(e["uri"], e["file_idx"]) for e in extracted], "uri string, file_idx int")
    ex = spark.read.parquet(*[file_uri(e["extract"]) if "://" not in e["extract"] else e["extract"] for e in extracted])
    shard_rows = ex.filter(F.col("kind") == "shard").select("uri", "shard").collect()
    shard_facts = {r["uri"]: json.loads(r["shard"]) for r in shard_rows}
    for uri, f in shard_facts.items():
        if f.get("unconventional_sha256", "") != registry_meta.get("unconventional_sha256", ""):
            raise SystemExit(f"{uri}: extracted under another set of unconventional markers than the registry's; extract again with --canaries")
    # The same bytes named twice are one file (ingest: already present): later copies are skipped.
    first_of_sha: dict[str, int] = {}
    skipped = []
    for e in extracted:
        sha = shard_facts[e["uri"]]["sha256"]
        if sha in first_of_sha:
            skipped.append(e["file_idx"])
        else:
            first_of_sha[sha] = e["file_idx"]
    lines = ex.join(F.broadcast(idx), "uri").filter(~F.col("file_idx").isin(skipped) if skipped else F.lit(True))

    rec_lines = lines.filter(F.col("kind") == "record")
    first_seen = Window.partitionBy("request_id").orderBy("file_idx", "ord")
    rec_lines = rec_lines.withColumn("_n", F.row_number().over(first_seen)).persist(StorageLevel.MEMORY_AND_DISK)
    records = rec_lines.filter(F.col("_n") == 1).drop("_n", "kind", "reason", "raw_kept", "shard")
    records = records.persist(StorageLevel.MEMORY_AND_DISK)
    duplicates = rec_lines.filter(F.col("_n") > 1).groupBy("file_idx").agg(F.count("*").alias("duplicates"))
    dup_lines = duplicate_lines(rec_lines, records)
    flag = lambda c: F.sum(F.when(F.col(c), 1).otherwise(0))  # noqa: E731
    per_shard = records.groupBy("file_idx").agg(
        F.count("*").alias("records"), F.min("ts_ms").alias("first_ms"), F.max("ts_ms").alias("last_ms"),
        flag("no_request_text").alias("no_request_text"), flag("no_response_text").alias("no_response_text"),
        flag("no_response").alias("no_response"), flag("is_error").alias("error_records"),
    )
    bad = lines.filter(F.col("kind") == "bad").select("file_idx", "line_no", "item", "byte_offset", "byte_len", "reason", "raw_kept")

    # ---------------------------------------------------------------- 4: findings
    sight = find_sightings(records, registry).persist(StorageLevel.MEMORY_AND_DISK)
    pii = pii_findings(records).persist(StorageLevel.MEMORY_AND_DISK)
    boiler, cands = find_candidates(records, args.boilerplate_tenants)
    cands = cands.persist(StorageLevel.MEMORY_AND_DISK)
    boiler_keys = [r["h"] for r in boiler.collect()]
    timings["findings_s"] = time.time() - t1

    # ---------------------------------------------------------------- 5: verify provenance candidates
    t2 = time.time()
    boiler_file = os.path.join(tmp, "boilerplate.txt")
    with open(boiler_file, "w", encoding="utf-8") as f:
        f.write("".join(f"{k}\n" for k in sorted(boiler_keys)))
    sc.addFile(boiler_file)
    shards_file = os.path.join(tmp, "shards.json")
    with open(shards_file, "w", encoding="utf-8") as f:
        json.dump([{"file_idx": e["file_idx"], "uri": e["uri"], "parse_spec": shard_facts[e["uri"]]["parse_spec"]} for e in extracted], f)
    sc.addFile(shards_file)
    # The chain rule's inputs: the responses with a contaminating sighting (copies), and the source sessions those name.
    contaminating = sight.filter(F.col("class").isin("cross_session", "cross_tenant"))
    copies = contaminating.select("file_idx", "ord").distinct().withColumn("copy", F.lit(True))
    named = contaminating.filter(F.col("source_session").isNotNull()).groupBy("file_idx", "ord").agg(
        F.array_sort(F.collect_set(F.array(F.col("source_tenant"), F.col("source_session")))).alias("named")
    )
    group_stats: dict = {}
    line = F.struct(
        F.col("file_idx"), F.col("ord"), F.col("line_no"), F.col("item"), F.col("byte_offset").alias("offset"), F.col("byte_len").alias("length"),
        F.col("crc32").alias("crc"), F.col("companions"), F.col("ts_ms"), F.col("decode_node").alias("node"), F.col("tenant_id"), F.col("session_id"),
        F.coalesce(F.col("copy"), F.lit(False)).alias("copy"),
    )
    lines_of = records.join(copies, ["file_idx", "ord"], "left").select("file_idx", "ord", line.alias("line"))
    cand_lines = cands.join(
        lines_of.select(F.col("file_idx").alias("c_file_idx"), F.col("ord").alias("c_ord"), F.col("line").alias("c_line")), ["c_file_idx", "c_ord"]
    ).select("file_idx", "ord", F.struct(*[F.col(f"c_line.{c}") for c in LINE_FIELDS], F.col("c_part").alias("part"), F.col("n")).alias("c"))
    tasks = (
        cand_lines.groupBy("file_idx", "ord").agg(F.collect_list("c").alias("c"))
        .join(lines_of, ["file_idx", "ord"])
        .join(named, ["file_idx", "ord"], "left")
        .join(verify_groups(cands, group_stats), ["file_idx", "ord"])
        .select("grp", F.col("line").alias("r"), F.coalesce(F.col("named"), F.array().cast("array<array<string>>")).alias("named"), "c")
    )
    n_tasks = cands.select("file_idx", "ord").distinct().count()
    verify_extra = ["--min-words", str(args.min_words)]
    parts = args.verify_partitions or args.shuffle_partitions
    attributed = tasks.repartition(parts, "grp").rdd.mapPartitions(
        lambda it: verify_partition(crosstalk, verify_extra, "shards.json", "boilerplate.txt", it)
    ).collect()
    # source_order, source_status and source_tenants say what the attribution establishes (a named
    # source, several tenants alike, only an answer whose prompt was not logged): kept as verify gave them.
    cols = ["file_idx", "ord", "source_file_idx", "source_ord", "overlap_words", "overlap_sha256", "matched", "word_start", "candidates",
            "source_order", "source_status", "source_tenants"]
    prov = [tuple(a[c] for c in cols) for a in attributed]
    prov_df = spark.createDataFrame(
        prov,
        "file_idx int, ord long, source_file_idx int, source_ord long, overlap_words int, overlap_sha256 string, matched string, word_start int, candidates int, "
        "source_order string, source_status string, source_tenants int",
    )
    src_meta = records.select(
        F.col("file_idx").alias("source_file_idx"), F.col("ord").alias("source_ord"),
        F.col("session_id").alias("source_session"), F.col("tenant_id").alias("source_tenant"),
    )
    prov_df = prov_df.join(src_meta, ["source_file_idx", "source_ord"]).persist(StorageLevel.MEMORY_AND_DISK)
    timings["verify_s"] = time.time() - t2

    # ---------------------------------------------------------------- questions scope asks of every record
    t3 = time.time()
    null = lambda c: F.sum(F.when(F.col(c).isNull(), 1).otherwise(0))  # noqa: E731
    # With a pool: the records whose missing fields leave open whether they were at risk (scope's
    # atRiskUndecided): no status, and a prompt at or over the pool or of unrecorded size; or status
    # 200 and no prompt size. A refused record, or a prompt below the pool, is known not at risk.
    extra = []
    if args.pool_tokens is not None:
        status, prompt = F.col("status"), F.col("prompt_tokens")
        undecided = (status.isNull() & (prompt.isNull() | (prompt >= args.pool_tokens))) | ((status == 200) & prompt.isNull())
        extra.append(F.sum(F.when(undecided, 1).otherwise(0)).alias("undecided_at_risk"))
    totals = records.agg(
        F.count("*").alias("records"), F.countDistinct("tenant_id").alias("tenants"), F.sort_array(F.collect_set("tenant_id")).alias("tenant_ids"),
        F.countDistinct("tenant_id", "session_id").alias("sessions"), F.min("ts_ms").alias("first_ms"), F.max("ts_ms").alias("last_ms"),
        null("status").alias("no_status"), null("prompt_tokens").alias("no_prompt_tokens"), null("completion_tokens").alias("no_completion_tokens"),
        null("decode_node").alias("no_decode_node"),
        F.sum(F.when(F.col("status").isNull() | F.col("prompt_tokens").isNull(), 1).otherwise(0)).alias("no_status_or_prompt_tokens"),
        *extra,
    ).collect()[0].asDict()
    for k in ("no_status", "no_prompt_tokens", "no_completion_tokens", "no_decode_node", "no_status_or_prompt_tokens") + (("undecided_at_risk",) if extra else ()):
        totals[k] = totals[k] or 0
    totals["tenant_ids"] = list(totals["tenant_ids"] or [])
    at_risk = None
    exposure = None
    # As scope: when no record says both its status and its prompt size, nothing is at risk or not (unknown).
    judgeable = not (totals["records"] > 0 and totals["no_status_or_prompt_tokens"] >= totals["records"])
    if args.pool_tokens is not None:
        at_risk = records.filter((F.col("status") == 200) & (F.col("prompt_tokens") >= args.pool_tokens)).select("file_idx", "ord", "decode_node", "ts_ms")
        if judgeable:
            # A record that may have been at risk (status or prompt size not recorded) widens its node's window as an at-risk one does (scope-data.ts).
            undecided_points = records.filter(undecided).select("decode_node", "ts_ms")
            exposure = _exposure(records, sight, prov_df, at_risk.select("decode_node", "ts_ms").unionByName(undecided_points))
    timings["facts_s"] = time.time() - t3

    # ---------------------------------------------------------------- 6: write findings
    t4 = time.time()
    rec_keys = (
        sight.select("file_idx", "ord")
        .unionByName(prov_df.select("file_idx", "ord"))
        .unionByName(prov_df.select(F.col("source_file_idx").alias("file_idx"), F.col("source_ord").alias("ord")))
        .unionByName(pii.select("file_idx", "ord"))
        .unionByName(pii.filter(F.col("source_file_idx").isNotNull()).select(F.col("source_file_idx").alias("file_idx"), F.col("source_ord").alias("ord")))
    )
    if at_risk is not None:
        rec_keys = rec_keys.unionByName(at_risk.select("file_idx", "ord"))
    finding_records = records.join(rec_keys.distinct(), ["file_idx", "ord"]).select(
        "file_idx", "ord", "line_no", "item", "uri", "byte_offset", "byte_len", "crc32", "companions", "request_id", "ts_ms"
    )
    write = lambda df, name: df.coalesce(1).write.mode("overwrite").parquet(f"{findings_dir}/{name}")  # noqa: E731
    write(finding_records.orderBy("file_idx", "ord"), "records")
    write(sight.drop("kind").orderBy("file_idx", "ord", "position", "kind"), "sightings")
    write(prov_df.orderBy("file_idx", "ord"), "provenance")
    write(pii.orderBy("file_idx", "ord", "kind", "value_sha256"), "pii_findings")
    write(bad.orderBy("file_idx", "line_no", "item"), "bad_lines")
    write(dup_lines.orderBy("file_idx", "ord"), "duplicates")
    # What was written, read back: each table's part files and the rows each holds. `ingest findings` refuses a
    # findings folder whose tables differ (a part missing after a partial copy, one present twice after a sync).
    tables = {name: _written(spark, findings_dir, name) for name in FINDINGS_TABLES}
    shards_out = []
    counts = {r["file_idx"]: r.asDict() for r in per_shard.collect()}
    dups = {r["file_idx"]: r["duplicates"] for r in duplicates.collect()}
    for e in extracted:
        f = shard_facts[e["uri"]]
        i = e["file_idx"]
        c = counts.get(i, {})
        shards_out.append({
            "file_idx": i, **{k: f[k] for k in SHARD_FACTS},
            "records": c.get("records", 0), "duplicates": dups.get(i, 0), "first_ms": c.get("first_ms"), "last_ms": c.get("last_ms"),
            "no_request_text": c.get("no_request_text", 0), "no_response_text": c.get("no_response_text", 0),
            "no_response": c.get("no_response", 0), "error_records": c.get("error_records", 0), "skipped": i in skipped,
            "log_bytes": e["log_bytes"], "extract_bytes": e["extract_bytes"], "extract_seconds": e["extract_seconds"], "record_lines": e["record_lines"],
        })
    log_bytes = sum(s["log_bytes"] for s in shards_out)
    extract_bytes = sum(s["extract_bytes"] for s in shards_out)
    timings["write_s"] = time.time() - t4
    timings["total_s"] = time.time() - t0
    manifest = {
        "format": FINDINGS_FORMAT,
        "crosstalk_spark": __version__,
        "extract_format": EXTRACT_FORMAT,
        "source": args.source,
        "reading": flags,
        "registry": registry_meta,
        "parameters": {
            "min_words": args.min_words, "boilerplate_tenants": args.boilerplate_tenants,
            "pool_tokens": args.pool_tokens, "advertised_tokens": args.advertised_tokens,
        },
        "corpus": totals,
        "exposure": exposure,
        "counts": {
            "shards": len(shards_out), "records": totals["records"], "sightings": sight.count(), "provenance": len(prov),
            "pii_findings": pii.count(), "duplicate_lines": dup_lines.count(), "boilerplate_hashes": len(boiler_keys), "verify_tasks": n_tasks, "verify_groups": group_stats, "log_bytes": log_bytes, "extract_bytes": extract_bytes,
            "extract_ratio": (extract_bytes / log_bytes) if log_bytes else 0,
            # Per-shard throughput of the map step: record lines per second of one crosstalk extract process.
            "extract_task_seconds": round(sum(s["extract_seconds"] for s in shards_out), 1),
            "extract_records_per_task_second": round(sum(s["record_lines"] for s in shards_out) / max(1e-9, sum(s["extract_seconds"] for s in shards_out)), 1),
        },
        "shards": shards_out,
        "tables": tables,
        "timings": timings,
    }
    if "://" in findings_dir:
        import fsspec

        with fsspec.open(f"{findings_dir}/manifest.json", "w") as f:
            json.dump(manifest, f, indent=2)
    else:
        with open(os.path.join(findings_dir, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2)
    print(json.dumps({"findings": findings_dir, **manifest["counts"], "timings": timings}))
    spark.stop()
    return 0


# A record's line as provenance-verify takes it (src/scale/verify-candidates.ts, Line).
LINE_FIELDS = ["file_idx", "ord", "line_no", "item", "offset", "length", "crc", "companions", "ts_ms", "node", "tenant_id", "session_id", "copy"]

# What each shard's extract says of it, carried into the manifest as is (src/scale/extract-shard.ts, ShardFacts).
SHARD_FACTS = [
    "uri", "sha256", "size", "compression", "content_sha256", "content_size", "log_format", "format_reason", "parse_spec", "lines", "blank_lines",
    "bom", "bad_lines", "ignored_items", "unread_conventions", "record_notes", "unread", "first_bad", "extract_scheme", "unconventional_sha256",
]


# The tables of findings/, each written as one or more part files.
FINDINGS_TABLES = ["records", "sightings", "provenance", "pii_findings", "bad_lines", "duplicates"]


def _written(spark, findings_dir: str, name: str) -> dict:
    """One table as written: its part files (names) with the rows each holds, and their total."""
    from pyspark.sql import functions as F

    folder = f"{findings_dir}/{name}"
    if "://" in folder:
        import fsspec

        fs, root = fsspec.core.url_to_fs(folder)
        names = [os.path.basename(p.rstrip("/")) for p in fs.ls(root, detail=False)]
    else:
        names = os.listdir(folder)
    parts = {n: 0 for n in sorted(names) if n.startswith("part-") and n.endswith(".parquet")}
    # An empty table's part file holds no row, so it appears in no group below: its 0 stands.
    for r in spark.read.parquet(file_uri(folder) if "://" not in folder else folder).groupBy(F.input_file_name().alias("f")).count().collect():
        n = os.path.basename(r["f"])
        if n not in parts:
            raise SystemExit(f"{folder}: Spark read {n}, which the listing of the folder does not hold")
        parts[n] = r["count"]
    return {"rows": sum(parts.values()), "parts": parts}


def duplicate_lines(rec_lines, records):
    """The record lines repeating a request id (row number _n over the reading order above 1), each with where its
    line lies, the lines it was read with, and whether its line's bytes are its record's (CRC-32 and length alike).

    Ingest keeps these as duplicate lines and `crosstalk ingest findings` stores them so: the case then reads each
    that differs from its record again and classifies its answer's markers as the scan classifies a record's
    (src/detect/conflicting-duplicates.ts), so that a retry logged under the same request id with another
    session's marker is a leak the gate sees, not a line nobody read. A repeat within its record's own line (an
    OpenTelemetry export of both attempts' spans) is marked not identical: the case may hold no copy of that
    record (it stores only the records findings rest on), and the items, not the lines, must be compared."""
    from pyspark.sql import functions as F

    kept = records.select(
        "request_id", F.col("file_idx").alias("k_file_idx"), F.col("byte_offset").alias("k_offset"),
        F.col("byte_len").alias("k_len"), F.col("crc32").alias("k_crc"), F.col("companions").alias("k_companions"),
    )
    same_line = (F.col("file_idx") == F.col("k_file_idx")) & (F.col("byte_offset") == F.col("k_offset"))
    identical = (F.col("crc32") == F.col("k_crc")) & (F.col("byte_len") == F.col("k_len")) & ~same_line
    # The case reads such a line again whole and judges every item of the request id in it, its
    # record's attempt too; it holds no copy of that record, so neither the lines the record was read
    # with (an OTLP span's content in the logs file): they go with the repeat's own, or the record's
    # attempt decodes to no text and the repeat is left not examined where one machine reads it.
    companions = F.when(
        F.coalesce(same_line, F.lit(False)),
        F.array_distinct(F.concat(F.col("companions"), F.coalesce(F.col("k_companions"), F.col("companions")))),
    ).otherwise(F.col("companions"))
    return rec_lines.filter(F.col("_n") > 1).join(kept, "request_id", "left").select(
        "file_idx", "ord", "line_no", "item", "byte_offset", "byte_len", "crc32", companions.alias("companions"), "request_id",
        F.coalesce(identical, F.lit(False)).alias("identical"),
    )


def _package_zip(tmp: str) -> str:
    import zipfile

    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(tmp, "crosstalk_spark.zip")
    with zipfile.ZipFile(path, "w") as z:
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                z.write(os.path.join(here, name), f"crosstalk_spark/{name}")
    return path


def _exposure(records, sight, prov, at_risk):
    """scope's upper bound of data subjects: sessions a suspect decode node served inside its window (src/scope/scope-data.ts)."""
    from pyspark.sql import functions as F

    rec_node = records.select("file_idx", "ord", "decode_node", "ts_ms")
    contaminated = sight.filter(F.col("class").isin("cross_session", "cross_tenant"))
    points = (
        contaminated.select("file_idx", "ord").join(rec_node, ["file_idx", "ord"]).select("decode_node", F.col("ts_ms").alias("lo"), F.col("ts_ms").alias("hi"))
        .unionByName(prov.select("file_idx", "ord").join(rec_node, ["file_idx", "ord"]).select("decode_node", F.col("ts_ms").alias("lo"), F.col("ts_ms").alias("hi")))
        .unionByName(at_risk.select("decode_node", F.col("ts_ms").alias("lo"), F.col("ts_ms").alias("hi")))
    )
    windows = points.groupBy("decode_node").agg(F.min("lo").alias("lo"), F.max("hi").alias("hi"))
    w_rows = windows.collect()
    # Provenance that names no source (ambiguous, unknown) is no session: all of it one unnamed pair, as scope counts it (scope-data.ts).
    named = F.col("source_status") == "named"
    confirmed = (
        contaminated.select(F.col("source_tenant").alias("tenant_id"), F.col("source_session").alias("session_id"))
        .unionByName(prov.select(
            F.when(named, F.col("source_tenant")).alias("tenant_id"), F.when(named, F.col("source_session")).alias("session_id"),
        ))
        .distinct()
    )
    w = F.broadcast(windows.withColumnRenamed("decode_node", "w_node"))
    served = (
        records.join(w, records.decode_node.eqNullSafe(w.w_node) & (records.ts_ms >= w.lo) & (records.ts_ms <= w.hi))
        .select("tenant_id", "session_id").distinct()
    )
    n_served = served.count()
    with_confirmed = served.unionByName(confirmed).distinct().count() if (w_rows or confirmed.count()) else 0
    return {
        "served": n_served,
        "with_confirmed": with_confirmed,
        "windows": sorted(([r["decode_node"], r["lo"], r["hi"]] for r in w_rows), key=lambda x: (x[0] is None, x[0] or "")),
    }


if __name__ == "__main__":
    sys.exit(main())

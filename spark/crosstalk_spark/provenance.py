"""Provenance candidates in Spark SQL: crosstalk's src/detect/provenance/candidates.ts.

Postings: per fingerprint hash, every response that has it (part 1) and every prompt that has
it when some response does (part 0); a hash repeated in one text is one posting. Records are
ranked by time, then record id (file order, then line order), and a posting's order is
(rank, part).

Boilerplate: a hash whose prompt postings span >= T distinct tenants, or whose response
postings do (counted apart, so that a prompt leaked into two other tenants' responses does
not become boilerplate).

Candidates of a response r: for each fingerprint of r's response (every occurrence counts:
a hash twice in the response tallies twice) that is not boilerplate and that r's own prompt
does not carry, the POSTING_CAP most recent postings before r's own, of other sessions;
tallied per (candidate record, part). The best MAX_VERIFIED by tally (ties: the later
posting) go to `crosstalk provenance-verify`, with the count of all of them.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

POSTING_CAP = 64
MAX_VERIFIED = 16
ORDER = ["ts_ms", "file_idx", "line_no"]
LINE = ["uri", "byte_offset", "byte_len", "crc32", "ts_ms", "file_idx", "line_no", "decode_node"]


def boilerplate_and_postings(records: DataFrame, tenants: int) -> tuple[DataFrame, DataFrame, DataFrame]:
    """(boilerplate hashes, postings of non-boilerplate hashes with two or more postings, response fingerprint multiplicities)."""
    meta = [*ORDER, "tenant_id", "session_id"]
    resp_fp = records.select(*meta, F.explode("response_fp").alias("h"))
    # Multiplicity of each hash in each response (the tally counts every occurrence).
    mult = resp_fp.groupBy("file_idx", "line_no", "h").agg(F.count("*").alias("mult"))
    resp_post = resp_fp.select(*meta, "h").distinct().withColumn("part", F.lit(1))
    resp_hashes = resp_post.select("h").distinct()
    prompt_post = (
        records.select(*meta, F.explode("prompt_fp").alias("h")).distinct()
        .join(resp_hashes, "h", "left_semi")
        .withColumn("part", F.lit(0))
    )
    # Both are read twice (boilerplate, then the candidates): computed once.
    postings = resp_post.unionByName(prompt_post).persist(StorageLevel.MEMORY_AND_DISK)
    per_hash = postings.groupBy("h").agg(
        F.countDistinct(F.when(F.col("part") == 0, F.col("tenant_id"))).alias("prompt_tenants"),
        F.countDistinct(F.when(F.col("part") == 1, F.col("tenant_id"))).alias("response_tenants"),
        F.count("*").alias("postings"),
    ).persist(StorageLevel.MEMORY_AND_DISK)
    boiler = per_hash.filter((F.col("prompt_tenants") >= tenants) | (F.col("response_tenants") >= tenants)).select("h")
    shared = per_hash.filter((F.col("prompt_tenants") < tenants) & (F.col("response_tenants") < tenants) & (F.col("postings") >= 2)).select("h")
    return boiler, postings.join(shared, "h", "left_semi"), mult


def candidate_tasks(records: DataFrame, tenants: int) -> tuple[DataFrame, DataFrame]:
    """(boilerplate hashes, one verification task per response with candidates)."""
    boiler, postings, mult = boilerplate_and_postings(records, tenants)
    w = Window.partitionBy("h").orderBy(*ORDER, "part")
    posting = F.struct(*[F.col(c) for c in ORDER], F.col("part"), F.col("tenant_id"), F.col("session_id"))
    with_prev = (
        postings.withColumn("p", posting)
        .withColumn("prev", F.collect_list("p").over(w.rowsBetween(-POSTING_CAP, -1)))
        .filter(F.col("part") == 1)
    )
    # The recipient's own prompt carries the hash: text it sent itself is never evidence against someone else.
    own_prompt = F.element_at("prev", -1)
    own = (F.size("prev") > 0) & (own_prompt["file_idx"] == F.col("file_idx")) & (own_prompt["line_no"] == F.col("line_no"))
    cands = (
        with_prev.filter(~own)
        .select(*ORDER, "tenant_id", "session_id", "h", F.explode("prev").alias("c"))
        .filter(~((F.col("c.tenant_id") == F.col("tenant_id")) & (F.col("c.session_id") == F.col("session_id"))))
        .join(mult, ["file_idx", "line_no", "h"])
        .groupBy("file_idx", "line_no", F.col("c.file_idx").alias("c_file_idx"), F.col("c.line_no").alias("c_line_no"), F.col("c.part").alias("c_part"))
        .agg(F.sum("mult").alias("n"), F.first("c.ts_ms").alias("c_ts_ms"))
    )
    ranked = cands.withColumn(
        "_r", F.row_number().over(Window.partitionBy("file_idx", "line_no").orderBy(F.col("n").desc(), F.col("c_ts_ms").desc(), F.col("c_file_idx").desc(), F.col("c_line_no").desc(), F.col("c_part").desc()))
    ).withColumn("total", F.count("*").over(Window.partitionBy("file_idx", "line_no")))
    best = ranked.filter(F.col("_r") <= MAX_VERIFIED)
    lines = records.select(*LINE)
    src = lines.select(*[F.col(c).alias(f"s_{c}") for c in LINE])
    best = best.join(src, (best.c_file_idx == src.s_file_idx) & (best.c_line_no == src.s_line_no))
    cand = F.struct(
        F.col("s_uri").alias("uri"), F.col("s_byte_offset").alias("offset"), F.col("s_byte_len").alias("length"), F.col("s_crc32").alias("crc"),
        F.col("s_ts_ms").alias("ts_ms"), F.col("s_file_idx").alias("file_idx"), F.col("s_line_no").alias("line_no"), F.col("s_decode_node").alias("node"),
        F.col("c_part").alias("part"), F.col("n").alias("n"),
    )
    grouped = best.groupBy("file_idx", "line_no").agg(F.sort_array(F.collect_list(F.struct(F.col("_r"), cand.alias("c")))).alias("cs"), F.first("total").alias("total"))
    tasks = grouped.join(lines, ["file_idx", "line_no"]).select(
        F.struct(F.col("file_idx"), F.col("line_no")).alias("id"),
        F.struct(
            F.col("uri"), F.col("byte_offset").alias("offset"), F.col("byte_len").alias("length"), F.col("crc32").alias("crc"),
            F.col("ts_ms"), F.col("file_idx"), F.col("line_no"), F.col("decode_node").alias("node"),
        ).alias("r"),
        F.transform("cs", lambda x: x["c"]).alias("c"),
        F.col("total").cast("int").alias("total"),
    )
    return boiler, tasks

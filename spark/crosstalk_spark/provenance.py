"""Provenance candidates in Spark SQL: crosstalk's src/detect/provenance/candidates.ts.

Postings: per fingerprint hash, every response that has it (part 1) and every prompt that has
it when some response does (part 0); a hash repeated in one text is one posting. Records are
ranked by time, then record id (ingest's reading order of the files, then the order it stores
each file's records: file_idx, ord), and a posting's order is (rank, part).

Boilerplate: a hash whose prompt postings span >= T distinct tenants; or whose response
postings do, unless they all came from one known decode node in at most 2T responses (a chain
of copies stays on the node whose stale pages carried it, and is short; what the model says
to many tenants is said on every node, and often). Prompts and responses are counted apart,
so that a prompt leaked into two other tenants' responses does not become boilerplate.

Candidates of a response r: for each fingerprint of r's response (every occurrence counts: a
hash twice in the response tallies twice) that is not boilerplate and that r's own prompt does
not carry, the POSTING_CAP most recent postings before r's own, of other sessions (and the
earlier prompts of r's own session: verification masks them as r's own text); tallied per
(candidate record, part). Every candidate goes to `crosstalk provenance-verify`, which applies
the chain rule (a copy is replaced by its own source) before it ranks and verifies them, as
scan does: the ranking cannot be done here, since it depends on earlier attributions.

Groups: responses are attributed in time order because a response whose candidate is an
earlier response with candidates of its own (a possible copy) needs that one's attribution
first. Such (response, candidate response) pairs link the responses into groups; groups are
independent, so each is verified in time order by one process, and groups run in parallel.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

POSTING_CAP = 64
ORDER = ["ts_ms", "file_idx", "ord"]


def boilerplate_and_postings(records: DataFrame, tenants: int) -> tuple[DataFrame, DataFrame, DataFrame]:
    """(boilerplate hashes, postings of non-boilerplate hashes with two or more postings, response fingerprint multiplicities)."""
    meta = [*ORDER, "tenant_id", "session_id"]
    resp_fp = records.select(*meta, "decode_node", F.explode("response_fp").alias("h"))
    # Multiplicity of each hash in each response (the tally counts every occurrence).
    mult = resp_fp.groupBy("file_idx", "ord", "h").agg(F.count("*").alias("mult"))
    resp_post = resp_fp.select(*meta, "decode_node", "h").distinct().withColumn("part", F.lit(1))
    resp_hashes = resp_post.select("h").distinct()
    prompt_post = (
        records.select(*meta, F.lit(None).cast("string").alias("decode_node"), F.explode("prompt_fp").alias("h")).distinct()
        .join(resp_hashes, "h", "left_semi")
        .withColumn("part", F.lit(0))
    )
    # Both are read twice (boilerplate, then the candidates): computed once.
    postings = resp_post.unionByName(prompt_post).persist(StorageLevel.MEMORY_AND_DISK)
    is_resp = F.col("part") == 1
    known_node = F.col("decode_node").isNotNull() & (F.col("decode_node") != "")
    per_hash = postings.groupBy("h").agg(
        F.countDistinct(F.when(F.col("part") == 0, F.col("tenant_id"))).alias("prompt_tenants"),
        F.countDistinct(F.when(is_resp, F.col("tenant_id"))).alias("response_tenants"),
        F.sum(F.when(is_resp, 1).otherwise(0)).alias("responses"),
        F.countDistinct(F.when(is_resp & known_node, F.col("decode_node"))).alias("response_nodes"),
        F.sum(F.when(is_resp & ~known_node, 1).otherwise(0)).alias("responses_without_node"),
        F.count("*").alias("postings"),
    )
    one_node = (F.col("response_nodes") == 1) & (F.col("responses_without_node") == 0)
    flagged = (F.col("prompt_tenants") >= tenants) | (
        (F.col("response_tenants") >= tenants) & (~one_node | (F.col("responses") > 2 * tenants))
    )
    per_hash = per_hash.withColumn("boiler", flagged).persist(StorageLevel.MEMORY_AND_DISK)
    boiler = per_hash.filter(F.col("boiler")).select("h")
    shared = per_hash.filter(~F.col("boiler") & (F.col("postings") >= 2)).select("h")
    return boiler, postings.drop("decode_node").join(shared, "h", "left_semi"), mult


def candidates(records: DataFrame, tenants: int) -> tuple[DataFrame, DataFrame]:
    """(boilerplate hashes, candidates: one row per (response, candidate record, part) with the shared fingerprints n)."""
    boiler, postings, mult = boilerplate_and_postings(records, tenants)
    w = Window.partitionBy("h").orderBy(*ORDER, "part")
    posting = F.struct(*[F.col(c) for c in ORDER], F.col("part"), F.col("tenant_id"), F.col("session_id"))
    with_prev = (
        postings.withColumn("p", posting)
        .withColumn("prev", F.collect_list("p").over(w.rowsBetween(-POSTING_CAP, -1)))
        .filter(F.col("part") == 1)
    )
    # The recipient's own prompt carries the hash: text it sent itself is never evidence against someone else.
    # try_: an empty window has no last element (NULL, never an error: ANSI mode, on by default since Spark 4, raises on element_at).
    own_prompt = F.try_element_at("prev", F.lit(-1))
    own = (F.size("prev") > 0) & (own_prompt["file_idx"] == F.col("file_idx")) & (own_prompt["ord"] == F.col("ord"))
    cands = (
        with_prev.filter(~own)
        .select(*ORDER, "tenant_id", "session_id", "h", F.explode("prev").alias("c"))
        # Other sessions' postings; and the recipient session's own earlier prompts, which provenance-verify
        # masks as text the recipient sent itself (attribute.ts), never a source.
        .filter(~((F.col("c.tenant_id") == F.col("tenant_id")) & (F.col("c.session_id") == F.col("session_id"))) | (F.col("c.part") == 0))
        .join(mult, ["file_idx", "ord", "h"])
        .groupBy("file_idx", "ord", F.col("c.file_idx").alias("c_file_idx"), F.col("c.ord").alias("c_ord"), F.col("c.part").alias("c_part"))
        .agg(F.sum("mult").cast("int").alias("n"))
    )
    return boiler, cands


def groups(cands: DataFrame, stats: dict | None = None) -> DataFrame:
    """(file_idx, ord, grp): the group of each response with candidates (union-find over the links, on the driver).
    `stats` receives the number of links, of responses in linked groups, of such groups, and the largest group's size."""
    tasks = cands.select("file_idx", "ord").distinct()
    links = (
        cands.filter(F.col("c_part") == 1)
        .join(tasks.select(F.col("file_idx").alias("c_file_idx"), F.col("ord").alias("c_ord")), ["c_file_idx", "c_ord"], "left_semi")
        .select("file_idx", "ord", "c_file_idx", "c_ord")
        .distinct()
    )
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    n_links = 0
    for row in links.toLocalIterator():
        n_links += 1
        a, b = find((row["file_idx"], row["ord"])), find((row["c_file_idx"], row["c_ord"]))
        if a != b:
            parent[max(a, b)] = min(a, b)
    if stats is not None:
        sizes: dict[tuple[int, int], int] = {}
        for k in list(parent.keys()):
            r = find(k)
            sizes[r] = sizes.get(r, 1) + 1
        stats.update({"links": n_links, "linked_responses": sum(sizes.values()), "linked_groups": len(sizes), "largest_group": max(sizes.values(), default=1)})
    spark = cands.sparkSession
    # Responses without links are groups of their own (their key, hashed, spreads them).
    linked = [(k[0], k[1], hash(find(k)) & 0x7FFFFFFF) for k in list(parent.keys())]
    roots = {find(k) for k in parent}
    linked += [(k[0], k[1], hash(k) & 0x7FFFFFFF) for k in roots if k not in parent]
    grp = spark.createDataFrame(linked, "file_idx int, ord long, grp long") if linked else spark.createDataFrame([], "file_idx int, ord long, grp long")
    return (
        tasks.join(F.broadcast(grp) if len(linked) < 1_000_000 else grp, ["file_idx", "ord"], "left")
        .withColumn("grp", F.coalesce("grp", F.abs(F.hash("file_idx", "ord")).cast("long")))
    )

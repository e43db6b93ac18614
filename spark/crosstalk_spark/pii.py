"""Personal data a response carried that its session never sent: crosstalk's src/detect/pii-findings.ts.

A value (kind and SHA-256) in a response is a finding unless the same session (tenant and
session) sent it in this record's prompt or an earlier one (a prompt sent after the answer does
not make a received value the session's own). Its source is the most recent earlier
prompt that carried it on the response's own decode node, else the most recent earlier prompt
on any node; none when nobody sent it earlier. "Earlier" is crosstalk's record order: time,
then record id (ingest's reading order of the files, then the order it stores each file's records).
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

ORDER = ["ts_ms", "file_idx", "ord"]


def pii_findings(records: DataFrame) -> DataFrame:
    values = (
        records.select(*ORDER, "tenant_id", "session_id", "decode_node", F.explode("pii").alias("p"))
        .select(
            *ORDER, "tenant_id", "session_id", "decode_node",
            F.col("p.in_response").alias("in_response"), F.col("p.kind").alias("kind"), F.lower(F.hex("p.sha256")).alias("value_sha256"),
        )
        .distinct()  # a value repeated in one text is one value (the case's primary key)
    )
    prompts = values.filter(~F.col("in_response"))
    responses = values.filter(F.col("in_response"))
    r, p = responses.alias("r"), prompts.alias("p")
    same = [F.col(f"p.{k}") == F.col(f"r.{k}") for k in ("value_sha256", "tenant_id", "session_id")]
    # At or before the response in record order (time, file_idx, ord): its own prompt included.
    at_or_before = (F.col("p.ts_ms") < F.col("r.ts_ms")) | (
        (F.col("p.ts_ms") == F.col("r.ts_ms"))
        & ((F.col("p.file_idx") < F.col("r.file_idx")) | ((F.col("p.file_idx") == F.col("r.file_idx")) & (F.col("p.ord") <= F.col("r.ord"))))
    )
    findings = r.join(p, same[0] & same[1] & same[2] & at_or_before, "left_anti").select(*[F.col(f"r.{c}") for c in responses.columns])

    # The most recent earlier prompt with the value: on any node, and on the response's node.
    # Responses and prompts of a value in one ordered list; a record's own prompt never
    # precedes its response here (same session: such values are not findings).
    src = F.struct(*[F.col(c) for c in ORDER], F.col("tenant_id"), F.col("session_id"))
    both = findings.withColumn("is_prompt", F.lit(False)).unionByName(
        prompts.join(findings.select("value_sha256").distinct(), "value_sha256").withColumn("is_prompt", F.lit(True))
    ).withColumn("src", F.when(F.col("is_prompt"), src))
    before = lambda *keys: Window.partitionBy(*keys).orderBy(*ORDER).rowsBetween(Window.unboundedPreceding, -1)  # noqa: E731
    both = both.withColumn("any_src", F.last("src", ignorenulls=True).over(before("value_sha256")))
    both = both.withColumn("node_src", F.last("src", ignorenulls=True).over(before("value_sha256", "decode_node")))
    chosen = F.when(F.col("decode_node").isNotNull() & F.col("node_src").isNotNull(), F.col("node_src")).otherwise(F.col("any_src"))
    return (
        both.filter(~F.col("is_prompt"))
        .withColumn("source", chosen)
        .select(
            "file_idx", "ord", "kind", "value_sha256",
            F.col("source.file_idx").alias("source_file_idx"), F.col("source.ord").alias("source_ord"),
            F.col("source.session_id").alias("source_session"), F.col("source.tenant_id").alias("source_tenant"),
        )
    )

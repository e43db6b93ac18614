"""Canary sightings in Spark SQL: the rules of crosstalk's src/extract/markers.ts.

resolveTokens: a marker-shaped token (CANARY- and its whole hex run, hex compared in lower
case) is a sighting of
  1. the registered marker equal to it, else
  2. when it has 16 or more hex digits and is a strict prefix of registered markers of the
     convention that all belong to one session (one marker, or several that session was issued):
     the first of them in key order, flagged partial (the contract's rule, before 3 since sighting
     rules 3: a token cut short of one marker that also extends a shorter one is the longer's), else
  3. the longest registered marker it starts with (at least 8 hex digits: the marker ran into
     an adjoining hex word), else
  4. when it has 16 or more hex digits and is a strict prefix of markers of two or more sessions:
     no marker, those sessions its candidates (classified below), else
  5. nobody (an orphan).
A token inside a longer registered marker outside the convention found in the same response
(the CANARY-<hex> head of CANARY-<hex>-s42) is part of it, not a sighting; so is a token written
as such a marker's head elsewhere in it, where it would be an orphan.
One sighting per registered marker (or per orphan token, case-folded) and response: the first
full occurrence, else the first partial one. Registered markers outside the CANARY-<hex>
convention come from the extract's automaton hits, added when the tokens did not already
give them.

classifySighting: own (the response's own session), echo (the marker itself, CANARY- and the
registered hex or a partial token's own hex, is in the request's own prompt; the hex digits
alone are not, nor is a longer marker that starts with them), cross_session (same tenant),
cross_tenant; orphans stay orphans. A token with candidates (4) is an orphan where one of them is
the response's own session (not flagged partial), else an echo where the prompt holds it, else
cross_session where one of them is of the response's tenant, else cross_tenant, flagged partial,
with no source session and the source tenant only where every candidate has the same. The extract carries, per token, how many of its hex digits,
from the first, the prompt holds right after a CANARY- (hex in either case: prompt_prefix), and
how many it holds as a CANARY-'s whole hex run (prompt_whole); every needle's hex is such a
prefix, so the echo test is a comparison of lengths: prompt_prefix for a partial, prompt_whole
for a full sighting. For a marker outside the convention the extract says whether the prompt
holds it whole, exactly as registered.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

PREFIX_LEN = len("CANARY-")
MIN_HEX = 8
MIN_PARTIAL_HEX = 16
CONVENTIONAL_KEY = r"^CANARY-[0-9a-f]{8,}$"


def sightings(records: DataFrame, registry: DataFrame) -> DataFrame:
    """records: the record key (file_idx, ord) + tenant_id, session_id, tokens, unconventional. registry: marker_key, marker, tenant_id, session_id."""
    reg = registry.select(
        F.col("marker_key").alias("reg_key"), F.col("marker").alias("reg_marker"),
        F.col("tenant_id").alias("reg_tenant"), F.col("session_id").alias("reg_session"),
    )
    rec = ["file_idx", "ord"]
    tokens = records.select(*rec, "tenant_id", "session_id", F.explode("tokens").alias("t")).select(
        *rec, "tenant_id", "session_id",
        F.col("t.token").alias("token"), F.col("t.position").alias("position"), F.col("t.prompt_prefix").alias("prompt_prefix"),
        F.col("t.prompt_whole").alias("prompt_whole"),
        F.concat(F.lit("CANARY-"), F.lower(F.substring("t.token", PREFIX_LEN + 1, 1 << 20))).alias("key"),
    ).withColumn("hexlen", F.length("key") - PREFIX_LEN)

    cols = [*rec, "position", "reg_key", "reg_marker", "reg_tenant", "reg_session"]
    # 1: the registered key equal to the token's key.
    exact = tokens.join(reg, tokens.key == reg.reg_key).select(*cols, F.lit(False).alias("partial"))
    # 2: a strict prefix of registered keys (16+ hex digits) that all belong to one session.
    owner = F.struct(F.col("reg_tenant").alias("tenant"), F.col("reg_session").alias("session"))
    prefixes_of_keys = (
        reg.filter(F.col("reg_key").rlike(CONVENTIONAL_KEY)).select("reg_key", "reg_tenant", "reg_session", F.explode(F.sequence(F.lit(PREFIX_LEN + MIN_PARTIAL_HEX), F.length("reg_key") - 1)).alias("plen"))
        # sequence() counts down when the key is too short for a partial: keep only real prefixes.
        .filter((F.col("plen") >= PREFIX_LEN + MIN_PARTIAL_HEX) & (F.col("plen") < F.length("reg_key")))
        .select(F.expr("substring(reg_key, 1, plen)").alias("prefix"), "reg_key", owner.alias("owner"))
        .groupBy("prefix").agg(F.array_distinct(F.collect_list("owner")).alias("owners"), F.min("reg_key").alias("reg_key"))
    )
    extending = prefixes_of_keys.filter(F.size("owners") == 1).drop("owners")
    several = prefixes_of_keys.filter(F.size("owners") >= 2).select(F.col("prefix").alias("amb_prefix"), F.col("owners").alias("amb_owners"))
    not_exact = tokens.join(exact.select(*rec, "position"), [*rec, "position"], "left_anti")
    partial_candidates = not_exact.filter(F.col("hexlen") >= MIN_PARTIAL_HEX)
    partial = (
        partial_candidates.join(extending, partial_candidates.key == extending.prefix).select(*rec, "position", "reg_key")
        .join(reg, "reg_key")
        .select(*cols, F.lit(True).alias("partial"))
    )
    # 3: the longest registered key that is a proper prefix of the token's key, at least 8 hex digits.
    rest = not_exact.join(partial.select(*rec, "position"), [*rec, "position"], "left_anti")
    prefixes = rest.select(*rec, "position", "key", F.explode(F.sequence(F.lit(PREFIX_LEN + MIN_HEX), F.length("key"))).alias("plen"))
    prefixes = prefixes.filter((F.col("plen") >= PREFIX_LEN + MIN_HEX) & (F.col("plen") < F.length("key"))).withColumn("prefix", F.expr("substring(key, 1, plen)"))
    longest = (
        prefixes.join(reg, prefixes.prefix == reg.reg_key)
        .withColumn("_r", F.row_number().over(Window.partitionBy(*rec, "position").orderBy(F.col("plen").desc())))
        .filter("_r = 1")
        .select(*cols, F.lit(False).alias("partial"))
    )
    resolved = tokens.join(exact.unionByName(partial).unionByName(longest), [*rec, "position"], "left")
    # 4: unresolved, cut short of markers of several sessions: those sessions, the candidates.
    resolved = resolved.join(several, (resolved.reg_key.isNull()) & (resolved.hexlen >= MIN_PARTIAL_HEX) & (resolved.key == several.amb_prefix), "left").drop("amb_prefix")
    resolved = resolved.withColumn("partial", F.coalesce("partial", F.col("amb_owners").isNotNull()))
    # A token inside a longer registered marker outside the convention that the response holds
    # (its first occurrence, as extracted), or written as the head of one where it is an orphan.
    unconventional_found = records.select(*rec, F.explode("unconventional").alias("u")).join(
        registry.filter(~F.col("marker_key").rlike(CONVENTIONAL_KEY)).select(F.col("marker").alias("h_marker")), F.col("u.marker") == F.col("h_marker"),
    ).select(*rec, F.col("h_marker"), F.col("u.position").alias("h_position"))
    after_head = F.expr("substring(h_marker, length(token) + 1, 1)")
    inside = resolved.join(unconventional_found, rec).filter(
        (F.length("token") < F.length("h_marker"))
        & (
            ((F.col("position") >= F.col("h_position")) & (F.col("position") + F.length("token") <= F.col("h_position") + F.length("h_marker")))
            | (F.col("reg_key").isNull() & F.expr("substring(h_marker, 1, length(token)) = token") & ~after_head.rlike("^[0-9a-fA-F]$"))
        )
    ).select(*rec, "position").distinct()
    resolved = resolved.join(inside, [*rec, "position"], "left_anti")
    # One sighting per registered marker (or orphan key) and response: the first full occurrence, else the first partial.
    dedup = F.coalesce(F.col("reg_key"), F.concat(F.lit("orphan:"), F.col("key")))
    found = (
        resolved.withColumn("dedup", dedup)
        .withColumn("_r", F.row_number().over(Window.partitionBy(*rec, "dedup").orderBy(F.col("partial").asc(), F.col("position").asc())))
        .filter("_r = 1")
        .withColumn(
            "needle_len",
            F.when(F.col("partial"), F.col("hexlen")).otherwise(F.length("reg_key") - PREFIX_LEN),
        )
        .withColumn("in_prompt", F.when(F.col("partial"), F.col("prompt_prefix")).otherwise(F.col("prompt_whole")) >= F.col("needle_len"))
        .select(*rec, "tenant_id", "session_id", "token", "position", "partial", "reg_key", "reg_marker", "reg_tenant", "reg_session", "in_prompt", "amb_owners", F.lit(0).alias("kind"))
    )
    # Registered markers outside the convention, as the extract's automaton found them (first occurrence each).
    unconventional_reg = reg.filter(~F.col("reg_key").rlike(CONVENTIONAL_KEY))
    hits = (
        records.select(*rec, "tenant_id", "session_id", F.explode("unconventional").alias("u"))
        .join(unconventional_reg, F.col("u.marker") == unconventional_reg.reg_marker)
        .select(
            *rec, "tenant_id", "session_id", F.col("reg_marker").alias("token"), F.col("u.position").alias("position"), F.lit(False).alias("partial"),
            "reg_key", "reg_marker", "reg_tenant", "reg_session", F.col("u.in_prompt").alias("in_prompt"),
            F.lit(None).cast(found.schema["amb_owners"].dataType).alias("amb_owners"), F.lit(1).alias("kind"),
        )
        .join(found.filter(F.col("reg_key").isNotNull()).select(*rec, "reg_key"), [*rec, "reg_key"], "left_anti")
    )
    allfound = found.unionByName(hits)
    amb_tenants = F.array_distinct(F.transform("amb_owners", lambda o: o["tenant"]))
    amb_own = F.exists("amb_owners", lambda o: (o["tenant"] == F.col("tenant_id")) & (o["session"] == F.col("session_id")))
    ambiguous = F.col("reg_key").isNull() & F.col("amb_owners").isNotNull()
    cls = (
        F.when(ambiguous & amb_own, "orphan")
        .when(ambiguous & F.col("in_prompt"), "echo")
        .when(ambiguous & F.array_contains(amb_tenants, F.col("tenant_id")), "cross_session")
        .when(ambiguous, "cross_tenant")
        .when(F.col("reg_key").isNull(), "orphan")
        .when((F.col("reg_tenant") == F.col("tenant_id")) & (F.col("reg_session") == F.col("session_id")), "own")
        .when(F.col("in_prompt"), "echo")
        .when(F.col("reg_tenant") == F.col("tenant_id"), "cross_session")
        .otherwise("cross_tenant")
    )
    return allfound.select(
        *rec,
        F.coalesce("reg_marker", "token").alias("marker"),
        F.col("reg_key").alias("marker_key"),
        cls.alias("class"),
        # flagged partial unless an orphan (one candidate the response's own session)
        (F.col("partial") & ~(ambiguous & amb_own)).alias("partial"),
        F.col("reg_session").alias("source_session"),
        F.when(ambiguous & (F.size(amb_tenants) == 1), amb_tenants[0]).otherwise(F.col("reg_tenant")).alias("source_tenant"),
        "position",
        "token",
        "kind",
    )

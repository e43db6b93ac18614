"""What runs on the executors: crosstalk itself, as a subprocess, one shard or one partition at a time.

Every rule that decides a finding from a text lives in crosstalk's TypeScript (extract:
decoding, marker tokens, fingerprints, PII; provenance-verify: the verbatim overlap and the
choice of the source). These wrappers only move bytes in and out of it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from typing import Iterable, Iterator


class CrosstalkFailed(RuntimeError):
    pass


def _run(cmd: list[str], stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise CrosstalkFailed(f"{' '.join(cmd[:4])} ... exited {proc.returncode}: {err[-1] if err else 'no message'}")
    return proc.stdout


def _is_local(uri: str) -> bool:
    return uri.startswith("file:") or "://" not in uri


def _local_path(uri: str) -> str:
    if uri.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(uri).path)
    return uri


def extract_partition(crosstalk: str, out_dir: str, extra: list[str], canaries: str | None, shards: Iterable[tuple[int, str]]) -> Iterator[dict]:
    """One shard per task: `crosstalk extract SHARD --out DIR`, the shard copied locally first when it is remote."""
    base = shlex.split(crosstalk)
    if canaries:
        from pyspark import SparkFiles

        extra = extra + ["--canaries", SparkFiles.get(canaries)]
    for file_idx, uri in shards:
        work = tempfile.mkdtemp(prefix="crosstalk-extract-")
        try:
            if _is_local(uri):
                path, uri_flag = _local_path(uri), []
            else:
                import fsspec  # optional: remote shards

                path = os.path.join(work, os.path.basename(uri))
                with fsspec.open(uri, "rb") as src, open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                uri_flag = ["--uri", uri]
            target = _local_path(out_dir) if _is_local(out_dir) else os.path.join(work, "out")
            started = time.monotonic()
            res = json.loads(_run(base + ["extract", path, "--out", target, "--json"] + uri_flag + extra))
            seconds = time.monotonic() - started
            f = res["per_file"][0]
            extract = f["extract"]
            if not _is_local(out_dir):
                import fsspec

                remote = out_dir.rstrip("/") + "/" + os.path.basename(extract)
                with open(extract, "rb") as src, fsspec.open(remote, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                extract = remote
            yield {
                "file_idx": file_idx, "uri": f["uri"], "sha256": f["sha256"], "extract": extract,
                "log_bytes": f["log_bytes"], "extract_bytes": f["extract_bytes"], "record_lines": f["record_lines"],
                # Wall time of the crosstalk process alone (node start, read, extract, write), on this executor.
                "extract_seconds": round(seconds, 3),
            }
        finally:
            shutil.rmtree(work, ignore_errors=True)


def verify_partition(crosstalk: str, extra: list[str], boilerplate: str | None, rows: Iterable) -> Iterator[dict]:
    """A partition of provenance tasks through `crosstalk provenance-verify` (JSON Lines both ways)."""
    tasks = [r.asDict(recursive=True) if hasattr(r, "asDict") else r for r in rows]
    if not tasks:
        return
    cmd = shlex.split(crosstalk) + ["provenance-verify"] + extra
    if boilerplate:
        from pyspark import SparkFiles

        cmd += ["--boilerplate", SparkFiles.get(boilerplate)]
    out = _run(cmd, "".join(json.dumps(t, separators=(",", ":")) + "\n" for t in tasks).encode("utf-8"))
    by_id = {(t["id"]["file_idx"], t["id"]["line_no"]): t for t in tasks}
    for line in out.decode("utf-8").splitlines():
        if not line.strip():
            continue
        a = json.loads(line)
        key = (a["id"]["file_idx"], a["id"]["line_no"])
        source = by_id[key]["c"][a["c"]]
        yield {
            "file_idx": key[0], "line_no": key[1], "source_file_idx": source["file_idx"], "source_line_no": source["line_no"],
            "overlap_words": a["overlap_words"], "overlap_sha256": a["overlap_sha256"], "matched": a["matched"],
            "word_start": a["word_start"], "candidates": a["candidates"],
        }

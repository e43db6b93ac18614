"""What runs on the executors: crosstalk itself, as a subprocess, one unit of shards or one partition at a time.

Every rule that decides a finding from a text lives in crosstalk's TypeScript (extract: the log
formats' decoder, marker tokens, fingerprints, PII; provenance-verify: the chain rule, the
verbatim overlap and the choice of the source). These wrappers only move bytes in and out of it.
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


def extract_partition(crosstalk: str, out_dir: str, extra: list[str], canaries: str | None, units: Iterable[tuple[int, list[str]]]) -> Iterator[dict]:
    """One unit per task (a shard, or a set of shards whose records join lines across them):
    `crosstalk extract SHARD... --out DIR`, remote shards copied locally first."""
    base = shlex.split(crosstalk)
    if canaries:
        from pyspark import SparkFiles

        extra = extra + ["--canaries", SparkFiles.get(canaries)]
    for first_idx, uris in units:
        work = tempfile.mkdtemp(prefix="crosstalk-extract-")
        try:
            paths: list[str] = []
            uri_flags: list[str] = []
            for i, uri in enumerate(uris):
                if _is_local(uri):
                    paths.append(_local_path(uri))
                    continue
                import fsspec  # optional: remote shards

                path = os.path.join(work, f"{i:06d}-{os.path.basename(uri)}")
                with fsspec.open(uri, "rb") as src, open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                paths.append(path)
            if any(not _is_local(u) for u in uris):
                # Every file's location, in order (a local one as its file:// URI, as extract would record it).
                for uri, path in zip(uris, paths):
                    uri_flags += ["--uri", uri if not _is_local(uri) else _file_uri(path)]
            target = _local_path(out_dir) if _is_local(out_dir) else os.path.join(work, "out")
            started = time.monotonic()
            res = json.loads(_run(base + ["extract", *paths, "--out", target, "--json"] + uri_flags + extra))
            seconds = time.monotonic() - started
            if len(res["per_file"]) != len(uris):
                raise CrosstalkFailed(f"extract of {uris[0]} ... gave {len(res['per_file'])} extracts for {len(uris)} shards")
            for i, f in enumerate(res["per_file"]):
                extract = f["extract"]
                if not _is_local(out_dir):
                    import fsspec

                    remote = out_dir.rstrip("/") + "/" + os.path.basename(extract)
                    with open(extract, "rb") as src, fsspec.open(remote, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    extract = remote
                yield {
                    "file_idx": first_idx + i, "uri": f["uri"], "sha256": f["sha256"], "extract": extract,
                    "log_bytes": f["log_bytes"], "extract_bytes": f["extract_bytes"], "record_lines": f["record_lines"],
                    # Wall time of the crosstalk process alone (node start, read, extract, write), on this executor, per shard of the unit.
                    "extract_seconds": round(seconds / len(uris), 3),
                }
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _file_uri(path: str) -> str:
    from pathlib import Path

    return Path(path).absolute().as_uri()


def verify_partition(crosstalk: str, extra: list[str], shards: str, boilerplate: str | None, rows: Iterable) -> Iterator[dict]:
    """A partition of provenance tasks (whole groups) through `crosstalk provenance-verify` (JSON Lines both ways)."""
    tasks = [r.asDict(recursive=True) if hasattr(r, "asDict") else r for r in rows]
    if not tasks:
        return
    from pyspark import SparkFiles

    cmd = shlex.split(crosstalk) + ["provenance-verify", "--shards", SparkFiles.get(shards)] + extra
    if boilerplate:
        cmd += ["--boilerplate", SparkFiles.get(boilerplate)]
    payload = "".join(json.dumps({"r": t["r"], "named": t["named"], "c": t["c"]}, separators=(",", ":")) + "\n" for t in tasks)
    out = _run(cmd, payload.encode("utf-8"))
    for line in out.decode("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)

"""Cut a generated incident's logs into N shards at line boundaries (deterministic).

Usage: split_shards.py OUT_DIR N FILE...   (FILEs in the order crosstalk reads them; .gz read decompressed)
Every fourth shard is written gzip-compressed (no name, mtime 0), so both paths are exercised.
"""

from __future__ import annotations

import gzip
import os
import sys


def main() -> int:
    out, n, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    texts = [(gzip.open(f).read() if f.endswith(".gz") else open(f, "rb").read()) for f in files]
    data = b"".join(t if t.endswith(b"\n") or not t else t + b"\n" for t in texts)
    size = len(data)
    cuts = [0]
    for i in range(1, n):
        at = data.find(b"\n", size * i // n)
        cuts.append(size if at < 0 else at + 1)
    cuts.append(size)
    for i in range(n):
        part = data[cuts[i]:cuts[i + 1]]
        name = os.path.join(out, f"shard-{i:02d}.jsonl")
        if i % 4 == 3:
            with open(name + ".gz", "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=1) as z:
                z.write(part)
        else:
            with open(name, "wb") as f:
                f.write(part)
    print(f"{n} shards, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

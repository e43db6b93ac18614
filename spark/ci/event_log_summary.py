"""Totals from a Spark event log directory: shuffle bytes written and read, input bytes, task time.

Usage: event_log_summary.py EVENT_LOG_DIR   (prints one JSON object)
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    root = sys.argv[1]
    totals = {"shuffle_write_bytes": 0, "shuffle_read_bytes": 0, "input_bytes": 0, "executor_run_ms": 0, "tasks": 0, "stages": 0}
    files = [os.path.join(d, n) for d, _, ns in os.walk(root) for n in ns if not n.startswith((".", "appstatus"))]
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                ev = json.loads(line)
                kind = ev.get("Event")
                if kind == "SparkListenerStageCompleted":
                    totals["stages"] += 1
                if kind != "SparkListenerTaskEnd":
                    continue
                m = ev.get("Task Metrics") or {}
                totals["tasks"] += 1
                totals["executor_run_ms"] += m.get("Executor Run Time", 0)
                totals["shuffle_write_bytes"] += (m.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0)
                r = m.get("Shuffle Read Metrics") or {}
                totals["shuffle_read_bytes"] += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
                totals["input_bytes"] += (m.get("Input Metrics") or {}).get("Bytes Read", 0)
    print(json.dumps(totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())

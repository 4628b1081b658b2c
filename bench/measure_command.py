"""Runs one ``app.py`` command in this process and prints its status, wall seconds and peak memory
(MB) as JSON: the size test and benchmark start it as a subprocess so each figure is its own."""
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import app  # noqa: E402

start = time.perf_counter()
status = app.main(sys.argv[1:])
seconds = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"status": status, "seconds": seconds, "peak_mb": peak_mb}))

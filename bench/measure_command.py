"""Runs one ``app.py`` command in this process and prints its status, wall seconds and peak memory
(MB) as JSON: the size test and benchmark start it as a subprocess so each figure is its own."""
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import app  # noqa: E402


def peak_mb():
    """This process's peak resident memory since it started (MB). Linux's VmHWM belongs to the
    address space exec made; ru_maxrss keeps the high-water mark of the process that forked us
    (a test runner of 480 MB made every command look that big), so it is only the fallback."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


start = time.perf_counter()
status = app.main(sys.argv[1:])
seconds = time.perf_counter() - start
print(json.dumps({"status": status, "seconds": seconds, "peak_mb": peak_mb()}))

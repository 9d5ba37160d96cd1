import os
import sys

from qosc.cli import main

code = main()
if sys.argv[1:2] == ["compile"] and sys.getprofile() is None and sys.gettrace() is None:
    # A compile of a large network leaves a heap of millions of objects whose teardown at exit takes a second;
    # nothing it started needs the interpreter's shutdown (its processes are joined, its children reaped,
    # its files closed): flush what it printed and leave at once (unless a profiler or tracer wants its exit).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
sys.exit(code)

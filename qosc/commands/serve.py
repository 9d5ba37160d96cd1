"""qosc serve: a compile server for one cache directory, which `qosc compile` uses while it listens (qosc.server)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import qosc.cli
from qosc import server
from qosc.cachedir import Untrusted, default_dir


def register(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("serve", help="keep a compile server running for the cache directory",
                         description="Start a compile server: while it listens, `qosc compile` with the same cache "
                         "directory runs in it (qosc imported, the cache's store in memory), with the same files, "
                         "diagnostics and exit status as in its own process. It exits after --idle seconds without "
                         "a request, on --stop, or when qosc's files change.")
    cmd.add_argument("--cache-dir", metavar="DIR",
                     help="the cache directory it serves (default $QOSC_CACHE_DIR, else ~/.cache/qosc)")
    cmd.add_argument("--idle", type=float, default=server.IDLE, metavar="SECONDS",
                     help=f"exit after this long without a request (default {server.IDLE:.0f})")
    cmd.add_argument("--detach", action="store_true", help="run in the background; return once it listens")
    what = cmd.add_mutually_exclusive_group()
    what.add_argument("--stop", action="store_true", help="stop the server of the cache directory")
    what.add_argument("--status", action="store_true", help="say whether a server listens, and since when")
    return cmd


def run(args: argparse.Namespace) -> int:
    cache_dir = Path(args.cache_dir) if args.cache_dir else default_dir()
    where = server.socket_path(cache_dir)
    if args.stop or args.status:
        found = server.status(cache_dir)
        if found is None:
            print(f"qosc: no compile server listens on {where}", file=sys.stderr)
            return 1
        if args.stop:
            server.stop(cache_dir)
            deadline = time.monotonic() + 60
            while where.exists() and time.monotonic() < deadline:  # it writes what it kept, then removes the socket
                time.sleep(0.02)
            print(f"qosc: stopped the compile server (pid {found.get('pid')}) on {where}", file=sys.stderr)
        else:
            print(f"qosc: compile server pid {found.get('pid')} on {where}, since "
                  f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(float(found.get('since', 0))))}, "
                  f"{found.get('requests')} compile(s)", file=sys.stderr)
        return 0
    try:
        srv = server.Server(cache_dir, args.idle)
    except (OSError, Untrusted) as exc:
        print(f"qosc: cannot serve {cache_dir}: {exc}", file=sys.stderr)
        return 2
    if not args.detach:
        print(f"qosc: compile server pid {os.getpid()} on {where}", file=sys.stderr)
        srv.serve(qosc.cli)
        return 0
    pid = os.fork()
    if pid == 0:  # the server: its own session, no terminal
        try:
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            srv.serve(qosc.cli)
        finally:
            os._exit(0)
    srv.sock.close()  # (the child listens)
    print(f"qosc: compile server pid {pid} on {where}", file=sys.stderr)
    return 0

"""Push many devices: compile, pick a driver per target, run N workers, report.

`plan()` validates and compiles the policies (nothing is pushed from a policy
with errors), one Job per device and target.  `run()` pushes the jobs over a
thread pool, shows progress on stderr and returns one Result per job.
`table()` and `report()` turn the results into the per-device table and the
JSON report.  Every string that leaves this module passes `redact()`.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import TextIO

from qosc import pipeline
from qosc.diagnostics import Diagnostic
from qosc.push import credentials as creds
from qosc.push.base import Driver, File, Job, Result, Status, push_one
from qosc.push.credentials import redact
from qosc.targets.base import Target
from qosc.targets.registry import targets


@dataclass
class Options:
    commit: bool = False
    confirm_timeout: int = 120
    workers: int = 4
    insecure_skip_hostkey: bool = False
    connect_timeout: float = 30.0
    rpc_timeout: float = 10.0
    """Per-request deadline: a request without a reply by then declares the session dead."""
    progress: bool = True


def plan(policies: Sequence[str], devices: Sequence[str] = ()) -> tuple[list[Job], list[Diagnostic]]:
    """Jobs for every pushable (target, device) of the policies; diagnostics when any policy has errors."""
    compiled = pipeline.compile_policies(policies, devices=devices, targets_filter=lambda t: driver_spec(t) is not None)
    jobs: list[Job] = []
    if not compiled.ok:
        return jobs, compiled.diagnostics
    for unit in compiled.units:
        files = tuple(File(o.path.split("/", 1)[1], o.text) for o in unit.outputs)
        jobs.append(Job(unit.unit.name, getattr(unit.unit, "platform", ""), unit.target.name,
                        getattr(unit.unit, "address", None), files, unit.policy.name))
    return jobs, compiled.diagnostics


def driver_spec(target: Target) -> tuple[str, str, int] | None:
    """(module, class, default port) of a target's push driver, or None when it has none."""
    if target.driver:
        module, _, cls = target.driver.partition(":")
        return module, cls, target.default_port
    return None


def driver_for(job: Job, options: Options):
    spec = driver_spec(targets()[job.target])
    if spec is None:
        raise ValueError(f"target {job.target} has no push driver")
    module, cls, port = spec
    credentials = creds.lookup(job.device, job.address, port, verify_host_key=not options.insecure_skip_hostkey)
    return getattr(importlib.import_module(module), cls)(job, credentials, options)


class Progress:
    """A progress bar on a terminal; one line per finished device otherwise."""

    def __init__(self, total: int, stream: TextIO, enabled: bool):
        self.total, self.stream, self.enabled = total, stream, enabled
        self.done = 0
        self.failed = 0
        self.lock = threading.Lock()
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()

    def update(self, result: Result) -> None:
        if not self.enabled:
            return
        with self.lock:
            self.done += 1
            self.failed += result.status in (Status.FAILED, Status.ROLLED_BACK, Status.UNKNOWN)
            if self.tty:
                width = 30
                filled = width * self.done // max(self.total, 1)
                self.stream.write(f"\rqosc push [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
                                  f" ({self.failed} failed)")
                if self.done == self.total:
                    self.stream.write("\n")
            else:
                self.stream.write(f"qosc push: [{self.done}/{self.total}] {result.device}: "
                                  f"{label(result)}\n")
            self.stream.flush()


def label(result: Result) -> str:
    if result.dry_run and result.status is Status.CHANGED:
        return "changed (dry run: not committed)"
    return result.status.value


def run(jobs: Sequence[Job], options: Options, stderr: TextIO = sys.stderr,
        make_driver: Callable[[Job, Options], Driver] = driver_for) -> list[Result]:
    progress = Progress(len(jobs), stderr, options.progress)
    results: list[Result] = []

    def one(job: Job) -> Result:
        start = time.monotonic()
        try:
            driver = make_driver(job, options)
        except Exception as exc:  # noqa: BLE001 - bad credentials settings, missing library: a failed result
            res = Result(job.device, job.target, Status.FAILED, not options.commit, stage="open",
                         error=redact(str(exc)))
        else:
            res = push_one(driver, options.commit, options.confirm_timeout)
        if options.insecure_skip_hostkey:
            res.notes.insert(0, "HOST KEY NOT VERIFIED (--insecure-lab-skip-hostkey)")
        res.seconds = time.monotonic() - start
        res.error, res.diff = redact(res.error), redact(res.diff)
        res.notes = [redact(n) for n in res.notes]
        return res

    with ThreadPoolExecutor(max_workers=max(1, options.workers), thread_name_prefix="qosc-push") as pool:
        futures = {pool.submit(one, job): job for job in jobs}
        for future in as_completed(futures):
            result = future.result()
            progress.update(result)
            results.append(result)
    order = {(j.device, j.target): i for i, j in enumerate(jobs)}
    return sorted(results, key=lambda r: order[(r.device, r.target)])


def table(results: Sequence[Result]) -> str:
    rows = [("DEVICE", "TARGET", "METHOD", "STATUS", "DETAIL")]
    for r in results:
        detail = f"{r.stage}: {r.error}" if r.error else ""
        detail = "; ".join(x for x in [detail, *r.notes] if x)
        rows.append((r.device, r.target, r.method or "-", label(r), detail))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4] for row in rows]
    counts = {s.value: sum(1 for r in results if r.status is s) for s in Status}
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) + f" ({len(results)} devices)")
    return redact("\n".join(line.rstrip() for line in lines)) + "\n"


def report(results: Sequence[Result], options: Options, policies: Sequence[str]) -> str:
    data = {
        "qosc_push": 1,
        "policies": list(policies),
        "commit": options.commit,
        "confirm_timeout": options.confirm_timeout,
        "rpc_timeout": options.rpc_timeout,
        "workers": options.workers,
        "host_key_verification": not options.insecure_skip_hostkey,
        "summary": {s.value: sum(1 for r in results if r.status is s) for s in Status},
        "devices": [r.as_dict() for r in results],
    }
    return redact(json.dumps(data, indent=2, sort_keys=True)) + "\n"


def failed(results: Sequence[Result]) -> bool:
    return any(r.status in (Status.FAILED, Status.ROLLED_BACK, Status.UNKNOWN) for r in results)

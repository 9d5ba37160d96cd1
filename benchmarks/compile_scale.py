#!/usr/bin/env python3
"""Compile a synthetic network for every target; compare with Aerleon; print one summary line.

N devices x 16 interfaces (default N = 10,000), the six platforms mixed in
turn (junos-mx, ios-gsr, junos-mx or, one in 50, junos-m-series, ios-xe,
catalyst6500, linux: a third JUNOS, a third IOS, a sixth Linux), every
interface taking one of a few shared profiles the way a real network reuses
them (validate_scale.py's policy, plus core profiles for M-series, which has
four queues and no strict priority).  qosc runs as the real command line
(`python -m qosc compile -j JOBS`, with an empty cache: a cold compile) in a
child process; the time is the wall-clock time of that process (start-up,
load, validate, check, render, write), the RSS the largest of its processes
(parent or worker).

In the same run, Aerleon (the maintained Capirca fork) generates Juniper and
Cisco filters from a generated YAML policy of --aerleon-terms terms (one
filter, both targets, the way `aclgen` is used); its `aclgen` runs from a
virtualenv under ~/.cache/qosc/bench-aerleon, created with `pip install
aerleon` on first use (--aerleon-python to use another interpreter, or
--no-aerleon).  Aerleon's time grows faster than linearly with the number of
terms, so measuring it at ~15 MB rather than at qosc's hundreds of MB favours
Aerleon.

With --verify, the linux-tc target also applies every distinct batch with
the real `tc` in a scratch network namespace (one `unshare` each, ~15 ms;
interfaces of equal settings share one), as `qosc compile --verify` does; a
default compile asks nothing of the machine.  --linear runs N = 1,000, 3,000 and 10,000 and reports
the time per device.  --incremental also times a second compile after one
device changed (the incremental cache).  --repeat K compiles K times (each in
a fresh directory, none removed before the last, so no run pays for the
previous one's deletions) and prints the range, min-median-max.

qosc's sources are byte-compiled first (python -m compileall, as pip does when
it installs a package), so that no run pays for compiling them (with
PYTHONDONTWRITEBYTECODE set, as on the project's machines, every run would).

MB/s are counted on configuration bytes: what a router or `tc` loads (every
file but the linux-tc device scripts, `*.sh`; a file under two names counts
twice, as each device loads its own), beside Aerleon's (all of its output is
filters).  Both numbers are printed, the total on disk too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from validate_scale import HEADER  # noqa: E402

PLATFORMS = [
    ("junos-mx", "xe-0/0/{i}", ("edge-1g", "core-10g", "core-100g")),
    ("ios-gsr", "POS{i}/0", ("gsr-edge-1g", "core-10g", "gsr-core-2g5")),
    ("junos-m-series", "so-{a}/{b}/0", ("m-core-2g5", "m-core-10g")),
    ("ios-xe", "TenGigabitEthernet0/0/{i}", ("edge-1g", "core-10g", "core-100g")),
    ("catalyst6500", "TenGigabitEthernet4/{i}", ("edge-1g", "core-10g", "core-100g")),
    ("linux", "eth{i}", ("edge-1g", "core-10g")),
]
M_SERIES_EVERY = 50
"""One device in 50 of the junos-m-series slot is M-series (a core box: four queues, no strict priority, so
the policy's premium service is not scheduled there and qosc warns, QOS115/QOS116); the others are MX."""
M_PROFILES = """\
  m-core-2g5: {role: core, speed: 2.5G, services: [best-effort, assured, lbe, network-control]}
  m-core-10g: {role: core, speed: 10G, services: [best-effort, assured, lbe, network-control]}
"""
GSR_EXTRA = {
    "policers:\n": "  ar-in-1r: {cir: 50M, cbs: 2.5MB, ebs: 5MB, conform: af21, exceed: af22, violate: af23}\n",
    "classifiers:\n": ("  gsr-site-in:\n    rules:\n"
                        "      - {name: video, match: {source: [198.18.20.0/24], protocol: [udp]},\n"
                        "         service: ip-premium}\n"
                        "      - {name: bulk, match: {source: [198.18.20.0/24], protocol: [tcp]}, service: assured,\n"
                        "         policer: ar-in-1r}\n"),
    "devices:\n": ("  gsr-edge-1g: {role: edge, speed: 1G, classifier: gsr-site-in}\n"
                    "  gsr-core-2g5: {role: core, speed: 2.5G}\n"),
}
"""The GSR (IOS 12.0S) has no two-rate policing and no interface above 10 Gbit/s (its police stops at 2 Gbit/s):
its edges police Assured Rate with a single-rate three-colour policer, its cores run at 2.5G and 10G."""
AERLEON_VENV = Path.home() / ".cache" / "qosc" / "bench-aerleon"


def generate(n: int, interfaces: int = 16) -> str:
    header = HEADER
    for anchor, extra in GSR_EXTRA.items():
        header = header.replace(anchor, extra + anchor if anchor == "devices:\n" else anchor + extra, 1)
    parts = [header.replace("devices:\n", M_PROFILES + "devices:\n")]
    for d in range(n):
        platform, pattern, profiles = PLATFORMS[d % len(PLATFORMS)]
        if platform == "junos-m-series" and (d // len(PLATFORMS)) % M_SERIES_EVERY:
            platform, pattern, profiles = PLATFORMS[0]
        parts.append(f"  r{d:05d}.example.net:\n    platform: {platform}\n    interfaces:\n")
        for i in range(interfaces):
            name = pattern.format(i=i, a=i // 4, b=i % 4)
            parts.append(f"      {name}: {{profile: {profiles[(d + i) % len(profiles)]}}}\n")
    return "".join(parts)


def tree_bytes(root: Path) -> tuple[int, int, int]:
    """(bytes of every file, files, bytes of configuration: every file but the *.sh device scripts)."""
    total = files = config = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for f in filenames:
            size = os.lstat(os.path.join(dirpath, f)).st_size
            total += size
            files += 1
            config += 0 if f.endswith(".sh") else size
    return total, files, config


def run_child(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB of the largest process of the child's tree, stderr) of one command."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        err.seek(0)
        stderr = err.read()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:6])} ... failed ({proc.returncode}):\n{stderr[-4000:]}")
    return seconds, usage.ru_maxrss / 1024, stderr  # ru_maxrss: KiB, max over the child and its reaped children


def qosc_compile(n: int, jobs: int, tmp: Path, verify: bool, rep: int = 0) -> dict[str, Any]:
    policy = tmp / f"synthetic-{n}-{rep}.yaml"
    policy.write_text(generate(n))
    out = tmp / f"out-{n}-{rep}"
    env = {**os.environ, "QOSC_CACHE_DIR": str(tmp / f"cache-{n}-{rep}")}  # empty: a cold compile, filling it
    cmd = [sys.executable, "-m", "qosc", "compile", "-q", "-j", str(jobs), *(["--verify"] if verify else []), "-o",
           str(out), str(policy)]
    seconds, rss, _ = run_child(cmd, env, ROOT)
    size, files, config = tree_bytes(out)
    return {"n": n, "seconds": seconds, "rss": rss, "mb": size / 1e6, "config": config / 1e6, "files": files,
            "policy": policy, "out": out, "env": env}


def incremental(res: dict[str, object], jobs: int) -> dict[str, Any]:
    """Recompiles after one device changed, with the cold compile's cache: in a process of their own, then with
    the compile server (`qosc serve`, started here): its first compile (it reads the store) and the next ones
    (what an editor or a CI loop that keeps the server sees).  Each: (seconds, peak RSS MiB, summary)."""
    policy, out, env = Path(str(res["policy"])), Path(str(res["out"])), dict(res["env"])  # type: ignore[call-overload]
    cmd = [sys.executable, "-m", "qosc", "compile", "-j", str(jobs), "-o", str(out), str(policy)]

    def once(name: str) -> tuple[float, float, str]:
        policy.write_text(change_one_device(policy.read_text(), name))
        seconds, rss, err = run_child(cmd, env, ROOT)
        summary = err.strip().splitlines()[-1].split(": ", 1)[-1].rsplit(", in ", 1)[0]
        return seconds, rss, summary

    found: dict[str, Any] = {"process": once("r00007.example.net")}
    cache = env["QOSC_CACHE_DIR"]
    subprocess.run([sys.executable, "-m", "qosc", "serve", "--detach", "--cache-dir", cache], env=env, cwd=ROOT,
                   check=True, stderr=subprocess.DEVNULL)
    try:
        found["server-first"] = once("r00013.example.net")
        found["server"] = [once(f"r{d:05d}.example.net") for d in (19, 25, 31)]
    finally:
        subprocess.run([sys.executable, "-m", "qosc", "serve", "--stop", "--cache-dir", cache], env=env, cwd=ROOT,
                       check=False, stderr=subprocess.DEVNULL)
    return found


def change_one_device(text: str, name: str = "r00007.example.net") -> str:
    """The policy with a description added to (or, the next time, changed on) the first interface of one device
    (its output changes)."""
    at = text.index(f"  {name}:\n")
    first = text.index("}\n", text.index("interfaces:\n", at))
    mark = ", description: changed by the benchmark"
    if text[first - len(mark) - 3:first - 3] == mark:
        n = int(text[first - 2:first]) + 1
        return text[:first - 2] + f"{n % 100:02d}" + text[first:]
    return text[:first] + mark + " 00" + text[first:]


def aerleon_python(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    python = AERLEON_VENV / "bin" / "python"
    if not python.exists():
        print("compile_scale: creating a virtualenv with `pip install aerleon` in", AERLEON_VENV, file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(AERLEON_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "aerleon"], check=True)
    return str(python)


def aerleon_policy(terms: int, root: Path) -> None:
    """A YAML policy of `terms` terms (Juniper and Cisco), 256 networks of 2 prefixes, 64 services."""
    shutil.rmtree(root, ignore_errors=True)
    for sub in ("def", "pol", "out"):
        (root / sub).mkdir(parents=True)
    nets = ["networks:"] + [f"  NET{i}:\n    values:\n" + "".join(
        f"      - address: 198.{18 + (i >> 7)}.{(i * 2 + k) % 256}.{k * 64}/26\n" for k in range(2))
        for i in range(256)]
    svcs = ["services:"] + [f"  SVC{i}:\n    - port: {1000 + i * 7}\n      protocol: tcp\n" for i in range(64)]
    (root / "def" / "networks.yaml").write_text("\n".join(nets) + "\n")
    (root / "def" / "services.yaml").write_text("\n".join(svcs) + "\n")
    lines = ["filters:", "  - header:", "      targets:", "        juniper: edge-in inet",
             "        cisco: edge-in extended", "    terms:"]
    for t in range(terms):
        lines += [f"      - name: t{t:06d}", f"        source-address: NET{t % 256}",
                  f"        destination-address: NET{(t * 7 + 3) % 256}", f"        destination-port: SVC{t % 64}",
                  "        protocol: tcp", "        action: accept" if t % 5 else "        action: deny"]
    (root / "pol" / "edge.yaml").write_text("\n".join(lines) + "\n")


def aerleon(terms: int, python: str, tmp: Path) -> dict[str, float]:
    root = tmp / "aerleon"
    aerleon_policy(terms, root)
    aclgen = [python, "-c", "from aerleon.aclgen import EntryPoint; EntryPoint()"]
    seconds, rss, _ = run_child([*aclgen, "--base_directory", ".", "--definitions_directory", "def",
                                 "--output_directory", "out"], None, root)
    size, files, _ = tree_bytes(root / "out")
    return {"seconds": seconds, "rss": rss, "mb": size / 1e6, "files": files, "terms": terms}


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """One value, or min-median-max of several."""
    if len(values) == 1:
        return fmt.format(values[0])
    return "-".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--devices", type=int, default=10_000)
    parser.add_argument("-j", "--jobs", type=int, default=0, help="qosc compile --jobs (default 0: one per CPU)")
    parser.add_argument("--aerleon-terms", type=int, default=20_000)
    parser.add_argument("--aerleon-python", help="an interpreter that has aerleon (default: a cached virtualenv)")
    parser.add_argument("--no-aerleon", action="store_true")
    parser.add_argument("--verify", action="store_true",
                        help="compile --verify: linux-tc also applies its batches with tc in a scratch netns")
    parser.add_argument("--linear", action="store_true", help="also N = 1,000 and 3,000: time per device")
    parser.add_argument("--incremental", action="store_true", help="also time a recompile after one device changed")
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="compile K times; print the range")
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "qosc")], check=True,
                   stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="qosc-bench-") as name:
        tmp = Path(name)
        sizes = sorted({1_000, 3_000, args.devices}) if args.linear else [args.devices]
        runs = [qosc_compile(n, args.jobs, tmp, args.verify) for n in sizes[:-1]]
        last = [qosc_compile(sizes[-1], args.jobs, tmp, args.verify, rep) for rep in range(max(1, args.repeat))]
        inc = [incremental(r, args.jobs) for r in last] if args.incremental else []
        aer = None if args.no_aerleon else aerleon(args.aerleon_terms, aerleon_python(args.aerleon_python) or "", tmp)
    for r in runs:
        print(f"compile_scale: N={r['n']}: {r['config']:.1f} MB of configuration ({r['mb']:.1f} MB) in "
              f"{r['seconds']:.2f} s, {r['seconds'] / r['n'] * 1000:.2f} ms/device, peak RSS {r['rss']:.0f} MiB",
              file=sys.stderr)
    r = last[0]
    seconds = [x["seconds"] for x in last]
    mbs = [r["config"] / s for s in seconds]
    line = (f"compile_scale: {r['n']} devices x 16 interfaces, {r['files']} files, {r['config']:.1f} MB of "
            f"configuration ({r['mb']:.1f} MB in all) in {spread(seconds)} s = {spread(mbs, '{:.1f}')} MB/s, "
            f"peak RSS {spread([x['rss'] for x in last], '{:.0f}')} MiB, jobs {args.jobs or 'auto'}, "
            f"verify {'on' if args.verify else 'off'}")
    if args.repeat > 1:
        line += f" ({len(last)} runs: min-median-max)"
    if args.linear:
        line += " | ms/device " + " / ".join(f"N={x['n']}: {x['seconds'] / x['n'] * 1000:.2f}" for x in runs + last[:1])
    if inc:
        steady = [x for i in inc for x in i["server"]]
        line += (f" | one device changed: {spread([x[0] for x in steady])} s with the compile server (qosc serve; "
                 f"its first compile {spread([i['server-first'][0] for i in inc])} s), "
                 f"{spread([i['process'][0] for i in inc])} s in a process of its own, peak RSS "
                 f"{spread([i['process'][1] for i in inc], '{:.0f}')} MiB ({inc[0]['process'][2]})")
    if aer is not None:
        amb = aer["mb"] / aer["seconds"]
        line += (f" | aerleon: {aer['terms']} terms, {aer['mb']:.1f} MB in {aer['seconds']:.2f} s = {amb:.2f} MB/s, "
                 f"peak RSS {aer['rss']:.0f} MiB | qosc/aerleon = {spread([m / amb for m in mbs], '{:.1f}')}x "
                 "(configuration MB/s)")
        if inc:
            line += (f"; one device changed: qosc {spread([x[0] for i in inc for x in i['server']])} s (server) beside "
                     f"aerleon's {aer['seconds']:.2f} s for its one policy")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

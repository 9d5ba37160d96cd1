#!/usr/bin/env python3
"""Read large configurations back; print one summary line.

A synthetic JUNOS router in curly text (interfaces with descriptions and
addresses, firewall filters, policy options, a class-of-service section: what
makes a real configuration large) at sizes up to the readers' limit (32 MiB),
and a `tc -j` dump of an HTB tree with 40,000 u32 filters (the issue 22
case: 3.7 MB took 30 s), each read by qosc.behaviour.readback.read_file (parse
and interpret, as import, verify and equiv do) in a child process of its own
for its peak RSS.  The same-run baseline is what any reader must do at least:
read the same file and split it into lines and words (JUNOS), or json.loads
each of its arrays (tc); the ratio says how much slower than that qosc is,
and MB/s at each size says it is linear.  Issue 22 measured a 50 MB JUNOS
file at 51 s and 1.3 GB before the readers were bounded and made linear.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COS = """\
class-of-service {
    classifiers {
        dscp core {
            import default;
            forwarding-class be { loss-priority low code-points [ be cs1 ]; }
            forwarding-class ef { loss-priority low code-points ef; }
            forwarding-class nc { loss-priority low code-points [ cs6 cs7 ]; }
        }
    }
    forwarding-classes { class be queue-num 0; class ef queue-num 1; class nc queue-num 3; }
    schedulers {
        s-be { transmit-rate remainder; buffer-size remainder; priority low; }
        s-ef { transmit-rate percent 20; shaping-rate percent 20; priority strict-high; }
        s-nc { transmit-rate percent 5; priority high; }
    }
    scheduler-maps { m { forwarding-class be scheduler s-be; forwarding-class ef scheduler s-ef;
                         forwarding-class nc scheduler s-nc; } }
    interfaces {
%s    }
}
"""


def junos(size: int) -> str:
    """A JUNOS configuration of about `size` bytes."""
    parts: list[str] = ["version 23.4R1;\nsystem { host-name bench; }\ninterfaces {\n"]
    cos: list[str] = []
    n, used = 0, 0
    while used < size * 0.55:
        block = (f"    xe-{n // 48}/{n // 8 % 6}/{n % 8} {{\n        description \"uplink to site {n} (bench)\";\n"
                 f"        unit 0 {{\n            family inet {{\n                filter {{\n"
                 f"                    input edge-{n % 50};\n                }}\n"
                 f"                address 198.18.{n // 250 % 256}.{n % 250}/31;\n            }}\n"
                 f"            family inet6 {{\n                address fd00:{n:x}::1/127;\n            }}\n"
                 "        }\n    }\n")
        parts.append(block)
        if n % 4 == 0:
            cos.append(f"        xe-{n // 48}/{n // 8 % 6}/{n % 8} {{\n            scheduler-map m;\n"
                       "            unit 0 {\n                classifiers {\n                    dscp core;\n"
                       "                }\n            }\n        }\n")
        used += len(block)
        n += 1
    parts.append("}\nfirewall {\n    family inet {\n")
    for f in range(50):
        parts.append(f"        filter edge-{f} {{\n")
        parts += [f"            term t{t} {{\n                from {{\n                    source-address {{\n"
                  f"                        198.19.{t % 256}.0/24;\n                    }}\n"
                  f"                    protocol tcp;\n                    destination-port {1000 + t};\n"
                  "                }\n                then {\n                    forwarding-class be;\n"
                  "                    accept;\n                }\n            }\n" for t in range(20)]
        parts.append("        }\n")
    parts.append("    }\n}\npolicy-options {\n")
    k = 0
    while used < size * 0.97 and k < 10**7:  # as `show configuration` prints them: one statement a line
        line = f"    prefix-list pl-{k} {{\n        198.{18 + k % 2}.{k // 256 % 256}.{k % 256}/32;\n    }}\n"
        parts.append(line)
        used += len(line)
        k += 1
    parts.append("}\n")
    return "".join(parts) + COS % "".join(cos)


def tc_dump(filters: int) -> str:
    """`tc -j` of an HTB tree with `filters` u32 filters (one per /32 destination, as a host shaper writes them)."""
    qdisc = [{"kind": "htb", "handle": "1:", "root": True, "options": {"default": "0x10"}}]
    classes = [{"class": "htb", "handle": "1:1", "root": True, "rate": 125000000, "ceil": 125000000, "prio": 0},
               {"class": "htb", "handle": "1:10", "parent": "1:1", "rate": 62500000, "ceil": 125000000, "prio": 1},
               {"class": "htb", "handle": "1:20", "parent": "1:1", "rate": 62500000, "ceil": 125000000, "prio": 2}]
    rows = [{"parent": "1:", "protocol": "ip", "pref": 10 + i // 1000, "kind": "u32",
             "options": {"fh": f"800::{i:x}", "order": i, "flowid": "1:20" if i % 2 else "1:10",
                         "match": {"value": f"{0xc6120000 + i:x}", "mask": "ffffffff", "off": 16}}}
            for i in range(filters)]
    return "## dev eth0\n" + "\n".join(json.dumps(x, separators=(",", ":")) for x in (qdisc, classes, rows)) + "\n"


CHILD = textwrap.dedent("""\
    import json, sys, time
    sys.path.insert(0, {root!r})
    kind, path = sys.argv[1], sys.argv[2]
    t = time.perf_counter()
    if kind == "qosc":
        from qosc.behaviour.readback import read_file
        r = read_file(path, sys.argv[3], "bench")
        assert r.behaviour is not None and r.behaviour.interfaces, [d.message for d in r.diagnostics][:3]
    elif kind == "split":
        text = open(path, encoding="utf-8").read()
        n = sum(len(line.split()) for line in text.split("\\n"))
    else:
        n = sum(len(json.loads(line)) for line in open(path, encoding="utf-8") if line.startswith("["))
    print(time.perf_counter() - t)
    """)


def run(kind: str, path: Path, platform: str = "") -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one child process."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT)), kind, str(path), platform],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read() if proc.stdout else "", proc.stderr.read() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"read_scale: {kind} {path.name} failed: {err[-2000:]}")
    return float(out.strip()), usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=31.0, help="largest JUNOS file, MB (default 31: under the limit)")
    parser.add_argument("--filters", type=int, default=40_000, help="u32 filters of the tc dump")
    args = parser.parse_args()
    sizes = sorted({args.mb / 4, args.mb / 2, args.mb})
    with tempfile.TemporaryDirectory(prefix="qosc-read-") as name:
        tmp = Path(name)
        rows = []
        for mb in sizes:
            path = tmp / f"r{mb:g}.conf"
            path.write_text(junos(int(mb * 1e6)), encoding="utf-8")
            real = path.stat().st_size / 1e6
            rows.append((real, *run("qosc", path, "junos-mx"), *run("split", path)))
        tc = tmp / "eth0.json"
        tc.write_text(tc_dump(args.filters), encoding="utf-8")
        tc_mb = tc.stat().st_size / 1e6
        tc_s, tc_rss = run("qosc", tc, "linux")
        tc_base, _ = run("json", tc)
    real, secs, rss, base, _ = rows[-1]
    line = (f"read_scale: junos curly {real:.1f} MB in {secs:.2f} s = {real / secs:.1f} MB/s, peak RSS {rss:.0f} MiB "
            f"(baseline split {real / base:.0f} MB/s, ratio {secs / base:.1f}x); linear: "
            + " / ".join(f"{r:.1f} MB {s:.2f} s" for r, s, *_ in rows)
            + f" | tc -j {args.filters:,} filters {tc_mb:.1f} MB in {tc_s:.2f} s = {tc_mb / tc_s:.1f} MB/s, peak RSS "
              f"{tc_rss:.0f} MiB (baseline json.loads {tc_mb / tc_base:.0f} MB/s, ratio {tc_s / tc_base:.1f}x)")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

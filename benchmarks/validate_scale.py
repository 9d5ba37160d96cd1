#!/usr/bin/env python3
"""Load, schema-check, build and check a synthetic network; print one summary line.

N devices x 16 interfaces (default N = 10,000), the platforms mixed, every
interface using one of a few shared profiles the way a real network reuses
them.  Target on the project's 2-core machine: <= 10 s and <= 1 GiB peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from qosc import api

PLATFORMS = [("junos-mx", "xe-0/0/{i}"), ("ios-xe", "TenGigabitEthernet0/0/{i}"),
             ("catalyst6500", "TenGigabitEthernet4/{i}"), ("linux", "eth{i}")]

HEADER = """\
qosc: 1
name: synthetic
defaults: {mtu: 1500B, rtt: 20ms}
services:
  best-effort: {kind: best-effort, default: true, queue: {share: 40%, buffer: 40%, priority: high}, drop-profile: be}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    queue: {share: 40%, buffer: 40%, priority: high}
    drop-profile: {low: af-low, medium: af-medium, high: af-high}
    policer: ar-in
  ip-premium: {kind: premium, queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}, policer: premium-in}
  lbe: {kind: lbe, queue: {share: 1%, buffer: 1%, priority: low}}
  network-control: {kind: network-control, queue: {share: 5%, buffer: 5%, priority: high}}
drop-profiles:
  be: {points: [[50, 10], [90, 100]], interpolate: true}
  af-low: {min: 60, max: 95, max-probability: 5%}
  af-medium: {min: 40, max: 80, max-probability: 10%}
  af-high: {min: 20, max: 60, max-probability: 20%}
policers:
  ar-in: {cir: 50M, cbs: 2.5MB, pir: 100M, pbs: 5MB, conform: af21, exceed: af22, violate: af23}
  premium-in: {cir: 10M, cbs: 64KB}
classifiers:
  site-in:
    rules:
      - {name: video, match: {source: [198.18.20.0/24], protocol: [udp]}, service: ip-premium}
      - {name: bulk, match: {source: [198.18.20.0/24], protocol: [tcp]}, service: assured}
profiles:
  edge-1g: {role: edge, speed: 1G, classifier: site-in, port-type: 1p7q8t}
  core-10g: {role: core, speed: 10G, port-type: 1p7q8t}
  core-100g: {role: core, speed: 100G, port-type: 1p7q8t}
devices:
"""


def generate(n: int, interfaces: int = 16) -> str:
    parts = [HEADER]
    profiles = ["edge-1g", "core-10g", "core-100g"]
    for d in range(n):
        platform, pattern = PLATFORMS[d % len(PLATFORMS)]
        parts.append(f"  r{d:05d}.example.net:\n    platform: {platform}\n    interfaces:\n")
        parts.extend(f"      {pattern.format(i=i)}: {{profile: {profiles[(d + i) % 3]}}}\n" for i in range(interfaces))
    return "".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", "--devices", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.yaml"
        path.write_text(generate(args.devices))
        size = path.stat().st_size
        start = time.perf_counter()
        result, _, targets_ok = api.validate_stages(path)
        core = time.perf_counter() - start
        if result.policy is not None and targets_ok:
            result.diagnostics.extend(api.target_checks(result.policy))
        total = time.perf_counter() - start
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    errors = [d for d in result.diagnostics if d.is_error]
    status = "ok" if result.policy is not None and not errors else f"FAILED ({len(errors)} errors)"
    if errors:
        print(errors[0], file=sys.stderr)
    print(f"validate_scale: {args.devices} devices x 16 interfaces, {size / 1e6:.1f} MB policy, "
          f"load+schema+build+check {core:.2f} s (target <= 10 s), with every target's capability checks "
          f"{total:.2f} s, peak RSS {rss_mib:.0f} MiB (target <= 1024 MiB), {status}")
    return 0 if status == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Peak memory of `qosc validate` on the largest inputs the limits let through; print one summary line.

Each measurement runs in its own child process (its peak RSS from getrusage), in the same run:
- a 31 MB policy (the validate_scale network, 45,000 devices x 16 interfaces, more than 2,000,000 nodes),
  which qosc must refuse while loading (QOS016);
- the densest policy the node limit accepts: one-interface devices just under 2,000,000 nodes, the shape
  with the most model objects a node found, validated with every target's checks;
- baselines: a small reference policy (the interpreter and its imports), and with --yaml PyYAML's own
  yaml.load (CSafeLoader) of the 31 MB file, which has no limits.
Target: every qosc run <= 1024 MiB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from validate_scale import HEADER, generate  # noqa: E402 - the same synthetic network

TARGET_MIB = 1024
CHILD = """\
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
mode, path = sys.argv[2], sys.argv[3]
start = time.perf_counter()
codes = []
if mode == "yaml":
    import yaml
    with open(path, encoding="utf-8") as fh:
        yaml.load(fh, Loader=yaml.CSafeLoader)
else:
    from qosc import api
    result = api.validate(path)
    codes = sorted({d.code for d in result.diagnostics if d.is_error})
print(json.dumps({"seconds": time.perf_counter() - start, "codes": codes,
                  "mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    mib: float
    codes: list[str]


def measure(mode: str, path: Path) -> Run:
    done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), mode, str(path)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"memory_scale: {mode} {path.name} failed: {done.stderr[-1000:]}")
    found = json.loads(done.stdout)
    return Run(float(found["seconds"]), float(found["mib"]), list(found["codes"]))


def dense(devices: int) -> str:
    """One-interface devices: 8 nodes each, the most model objects per node of the shapes tried."""
    return HEADER + "".join(f"  d{d}: {{platform: linux, interfaces: {{eth0: {{}}}}}}\n" for d in range(devices))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--yaml", action="store_true", help="also measure yaml.load of the 31 MB file (~2 GiB)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big, most = Path(tmp) / "big.yaml", Path(tmp) / "dense.yaml"
        big.write_text(generate(45_000))
        most.write_text(dense(245_000))
        small = measure("qosc", ROOT / "policies" / "geant-lbe.yaml")
        refused = measure("qosc", big)
        accepted = measure("qosc", most)
        plain = measure("yaml", big) if args.yaml else None
        sizes = big.stat().st_size / 2**20, most.stat().st_size / 2**20
    ok = (refused.codes == ["QOS016"] and "QOS016" not in accepted.codes
          and max(refused.mib, accepted.mib) <= TARGET_MIB)
    line = (f"memory_scale: {sizes[0]:.1f} MiB policy (45,000 devices) refused {','.join(refused.codes)} in "
            f"{refused.seconds:.1f} s, peak RSS {refused.mib:.0f} MiB; densest accepted (245,000 one-interface "
            f"devices, {sizes[1]:.1f} MiB, under 2,000,000 nodes) validated in {accepted.seconds:.1f} s, peak "
            f"{accepted.mib:.0f} MiB; baseline: small policy {small.mib:.0f} MiB")
    if plain is not None:
        line += f", yaml.load of the same file {plain.mib:.0f} MiB in {plain.seconds:.1f} s"
    print(f"{line}; target <= {TARGET_MIB} MiB: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

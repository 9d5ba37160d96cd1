"""The reference MPLS backbone (examples/mpls-backbone.yaml) cut to its JUNOS devices, for the JUNOS tests: the
other targets' devices stay out, so what their targets do not render yet (QOS090) is not these tests' business."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "mpls-backbone.yaml"
DEVICES = ("pe-mx", "p-mx", "p-m")


def junos_backbone(folder: Path, change: dict[str, object] | None = None) -> Path:
    """The example with its JUNOS devices only (and `change`: top-level keys replaced), written to `folder`."""
    policy = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    policy["devices"] = {name: body for name, body in policy["devices"].items() if name in DEVICES}
    policy.update(change or {})
    path = folder / "mpls-backbone-junos.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return path

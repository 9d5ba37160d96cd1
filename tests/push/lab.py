"""Lab policies for the push tests: the reference policies with management addresses on loopback."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def lab_policy(tmp: Path, source: str = "assured-rate.yaml", address: str = "127.0.0.1",
               edit: dict[str, str] | None = None, name: str = "lab.yaml") -> Path:
    """Copy policies/<source> with every device at `address`; `edit` replaces text (old -> new) first."""
    text = (ROOT / "policies" / source).read_text(encoding="utf-8")
    for old, new in (edit or {}).items():
        assert old in text, f"{old!r} not in {source}"
        text = text.replace(old, new)
    head, sep, devices = text.partition("\ndevices:\n")
    devices = re.sub(r"^  ([A-Za-z0-9._-]+):\n", lambda m: f"  {m.group(1)}:\n    address: {address}\n",
                     devices, flags=re.MULTILINE)
    path = tmp / name
    path.write_text(head + sep + devices, encoding="utf-8")
    return path

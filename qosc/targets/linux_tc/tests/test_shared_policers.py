"""Rules of one interface that name the same policer (their own or their service's) share it, as the schema says:
one police index, one token bucket, in every filter of those rules (bulk-transfer polices with its service's
ar-in, bulk-transfer-2 names ar-in itself)."""

from __future__ import annotations

import re
from pathlib import Path

from qosc import api

ROOT = Path(__file__).resolve().parents[4]
SECOND = """      - name: bulk-transfer-2
        match: {source: [198.18.21.0/24], protocol: [tcp]}
        service: assured
        policer: ar-in
"""


def _indexes(batch: str, source: str) -> set[tuple[str, ...]]:
    return {tuple(re.findall(r"index (\d+)", line)) for line in batch.splitlines()
            if f"match ip src {source}" in line}


def test_rules_naming_one_policer_share_its_index(tmp_path: Path) -> None:
    text = (ROOT / "policies" / "assured-rate.yaml").read_text(encoding="utf-8")
    anchor = "      - name: backups\n"
    path = tmp_path / "p.yaml"
    path.write_text(text.replace(anchor, SECOND + anchor, 1), encoding="utf-8")
    result = api.validate(path)
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    batch = next(o.text for o in api.compile_policy(result, ["linux-tc"]) if o.path.endswith("linux-gw/eth0.tc"))
    first, second = _indexes(batch, "198.18.20.0/24"), _indexes(batch, "198.18.21.0/24")
    bulk = {i for i in first if len(i) == 2}  # bulk-transfer: ar-in is three-colour, two police stages
    assert len(bulk) == 1 and second == bulk, (first, second)
    premium = {i for i in first if len(i) == 1}  # premium-video's premium-in: an index of its own
    assert premium and not premium & second and all(set(p).isdisjoint(next(iter(bulk))) for p in premium)

"""Policers several rules of one interface name are one policer for them (the schema's meaning), on JUNOS:
`filter-specific` (else Junos makes one instance per term); IPv4 and IPv6 filters each get an instance (QOS190)."""

from __future__ import annotations

from pathlib import Path

from qosc import api
from qosc.behaviour import readback
from qosc.targets.junos import read as reader
from qosc.targets.junos.tests.statements import parse_conf

ROOT = Path(__file__).resolve().parents[4]
POLICY = (ROOT / "policies" / "assured-rate.yaml").read_text(encoding="utf-8")
SECOND = """      - name: bulk-transfer-2
        match: {source: [198.18.21.0/24], protocol: [tcp]}
        service: assured
"""


def _compile(tmp_path: Path, text: str) -> tuple[Path, api.Result, str]:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    assert result.ok, [str(d) for d in result.diagnostics if d.is_error]
    conf = next(o.text for o in api.compile_policy(result, ["junos"]) if o.path.endswith("edge-mx.conf"))
    return path, result, conf


def test_rules_sharing_a_policer_make_it_filter_specific_and_read_back_shared(tmp_path: Path) -> None:
    anchor = "      - name: backups\n"
    path, result, conf = _compile(tmp_path, POLICY.replace(anchor, SECOND + anchor, 1))
    statements = parse_conf(conf)
    assert ("firewall", "policer", "ar-in", "filter-specific") not in statements  # ar-in is three-colour
    assert ("firewall", "three-color-policer", "ar-in", "filter-specific") in statements
    # premium-in is named by one term only: term-specific as before
    assert ("firewall", "policer", "premium-in", "filter-specific") not in statements
    device, _ = reader.interpret(reader.parse(conf, "edge-mx.conf", None), None)
    iface = next(i for i in device.interfaces if i.rules)
    shared = {r.name: r.policer.shared for r in iface.rules if r.policer is not None}
    assert shared["bulk-transfer"] == shared["bulk-transfer-2"] == "ar-in" and shared["premium-video"] is None
    (tmp_path / "edge-mx.conf").write_text(conf, encoding="utf-8")
    assert not readback.verify(str(path), {"edge-mx": str(tmp_path / "edge-mx.conf")}).findings
    # without filter-specific each term has its own instance: verify says the rules no longer share it
    (tmp_path / "edge-mx.conf").write_text(conf.replace("filter-specific;\n", ""), encoding="utf-8")
    found = readback.verify(str(path), {"edge-mx": str(tmp_path / "edge-mx.conf")}).findings
    assert any(f.what == "shared with" and "bulk-transfer" in f.subject for f in found), found
    # IPv4 and IPv6 filters each hold an instance: said at the policer's definition
    (warn,) = [d for d in result.diagnostics if d.code == "QOS190"]
    assert warn.location is not None and POLICY.splitlines()[warn.location.line - 2].strip() == "ar-in:"

"""The iosxr grammar facts come from Cisco's unified YANG: what the derivation keeps, and that the committed facts
are the script's output where Cisco's files are local (.vendor/iosxr-yang, git-ignored)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qosc.grammar.yangderive import Deriver
from qosc.grammar.yangtext import Library
from qosc.targets.iosxr.grammar import RELEASES, YANG

ROOT = Path(__file__).resolve().parents[4]
VENDOR = ROOT / ".vendor" / "iosxr-yang"


def test_facts_name_their_modules_and_hold_what_qosc_writes() -> None:
    assert RELEASES == ("26.2.1", "24.4.2")
    revisions = {y.release: y.schema.data["modules"]["Cisco-IOS-XR-um-policymap-classmap-cfg"] for y in YANG}
    assert revisions == {"26.2.1": "2025-05-01", "24.4.2": "2022-07-11"}
    for y in YANG:
        s = y.schema
        cls = s.node("policy-map/type/qos/class")
        assert cls.keys == ("name", "type") and cls.must  # a class needs an action
        assert s.node("policy-map/type/qos/class/priority/level").type.refuse("8") is not None  # type: ignore[union-attr]
        assert s.node("policy-map/type/qos/class/bandwidth").must  # value and unit
        assert s.node("interfaces/interface/service-policy/output").keys == ("service-policy-name",)
        assert s.node("class-map/type/qos/match/mpls/experimental/topmost/label").kind == "leaf-list"


def test_augments_uses_and_choices_are_followed(tmp_path: Path) -> None:
    (tmp_path / "a.yang").write_text("""
module a { namespace "urn:a"; prefix a;
  grouping g { leaf x { type uint8 { range "1..7"; } } }
  container top { list item { key "name"; leaf name { type string; }
    choice c { case one { leaf p { type string; } } case two { uses g; } } } } }
""")
    (tmp_path / "b.yang").write_text("""
module b { namespace "urn:b"; prefix b; import a { prefix a; }
  augment "/a:top/a:item" { container extra { must "y"; leaf y { type boolean; mandatory true; } } } }
""")
    d = Deriver(Library(tmp_path), (("a", "top"),), ("top/**",))
    item = d.tree()["top"]["children"]["item"]
    assert item["keys"] == ["name"]
    assert item["children"]["x"]["type"] == {"int": [[1, 7]]} and item["children"]["x"]["cases"] == [["c", "two"]]
    assert item["children"]["extra"]["must"] == [{"expr": "y"}]
    assert item["children"]["extra"]["children"]["y"]["mandatory"] is True


@pytest.mark.skipif(not VENDOR.is_dir(), reason="Cisco's YANG is not in .vendor/iosxr-yang (see the script)")
def test_committed_facts_are_the_scripts_output(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "derive-iosxr-grammar"), str(VENDOR), str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    for release in RELEASES:
        name = f"iosxr-{release}.json"
        committed = (ROOT / "qosc" / "targets" / "iosxr" / "yang" / name).read_text()
        assert json.loads((tmp_path / name).read_text()) == json.loads(committed)
        assert (tmp_path / name).read_text() == committed

"""scripts/derive-junos-grammar: its YANG reading on a small module, and (where Juniper's files are present
locally in .vendor/) that the committed grammar data is exactly what it derives."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[4]
SCRIPT = ROOT / "scripts" / "derive-junos-grammar"
VENDOR = ROOT / ".vendor" / "juniper-yang"


def script() -> ModuleType:
    loader = SourceFileLoader("derive_junos_grammar", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


ROOT_MODULE = """
module junos-conf-root { namespace "r"; prefix jc; revision 2023-01-01 { description "Junos: 23.4R1.10"; }
  container configuration { } }
"""
COS_MODULE = r"""
module junos-conf-class-of-service {
  namespace "c"; prefix jc-cos;
  import junos-conf-root { prefix jc; }
  revision 2023-01-01 { description "Junos: 23.4R1.10"; }
  augment /jc:configuration { uses cos-group; }
  grouping cos-group { container class-of-service { uses apply-advanced; uses sched; } }
  grouping apply-advanced { leaf-list apply-groups { type string; } }
  typedef short-name { type string { length "1 .. 64"; } }
  grouping sched {
    list schedulers {
      key name;
      leaf name { junos:cli-feature "nokeyword"; type short-name; }
      container transmit-rate {
        choice transmit_rate_choice {
          case case_1 { leaf rate { junos:cli-feature "nokeyword"; type string; } }
          case case_2 {
            leaf percent { type union { type string { pattern "<.*>|$.*"; } type uint32 { range "0 .. 100"; } } }
          }
        }
        leaf exact { type empty; }
      }
      leaf priority { type enumeration { enum "low"; enum "high"; } }
      leaf-list tag { type string { junos:posix-pattern "!^__.*$"; } }  // a comment
    }
  }
}
"""


def test_the_script_reads_uses_typedefs_choices_keyword_less_leaves_and_patterns(tmp_path: Path) -> None:
    (tmp_path / "junos-conf-root@2023-01-01.yang").write_text(ROOT_MODULE)
    (tmp_path / "junos-conf-class-of-service@2023-01-01.yang").write_text(COS_MODULE)
    derive = script()
    data = derive.Deriver(tmp_path).derive("23.4R1")
    assert data["modules"] == {"junos-conf-class-of-service": "2023-01-01", "junos-conf-root": "2023-01-01"}
    sched = data["tree"]["class-of-service"]["children"]["schedulers"]
    assert sched["kind"] == "list" and sched["keys"] == ["name"]
    children = sched["children"]
    assert children["name"] == {"nokeyword": True, "kind": "leaf", "type": {"string": [1, 64, [], []]}}
    rate = children["transmit-rate"]["children"]
    assert rate["rate"]["nokeyword"] and rate["rate"]["cases"] == [["transmit_rate_choice", "case_1"]]
    assert rate["percent"]["type"] == {"int": [[0, 100]]}  # the apply-groups wildcard member left out
    assert rate["exact"]["kind"] == "empty"
    assert children["priority"]["type"] == {"enum": ["low", "high"]}
    tag = children["tag"]
    assert tag["kind"] == "leaf-list" and tag["type"]["string"][3]  # the inverted POSIX pattern is refused
    assert "apply-groups" not in data["tree"]["class-of-service"]["children"]


MUST_MODULE = r"""
module junos-conf-class-of-service {
  namespace "c"; prefix jc-cos;
  import junos-conf-root { prefix jc; }
  revision 2023-01-01 { description "Junos: 23.4R1.10"; }
  augment /jc:configuration { uses cos-group; }
  grouping cos-group { container class-of-service { uses sched; } }
  grouping sched {
    list schedulers {
      key name;
      leaf name { junos:cli-feature "nokeyword"; type string;
                  junos:must "(\".. priority\")"; junos:must-message "a scheduler needs a priority"; }
      container shaping-rate {
        junos:must "(!((\".. transmit-rate exact\" && \".. shaping-rate\")))";
        junos:must-message "only one option (shaping-rate or transmit-rate rate-limit) can be configured at a time";
        junos:must "(!(\"interfaces ${interface} hierarchical-scheduler\"))";
        junos:must-message "second";
        leaf percent { type uint32; }
      }
      leaf priority { type enumeration { enum "low"; enum "strict-high" {
          junos:must "(!(any \".. .. schedulers <*> priority $$={strict-high}\"))"; junos:must-message "one"; } } }
    }
  }
}
"""


def test_the_script_extracts_each_must_with_its_message_module_and_enum_value(tmp_path: Path) -> None:
    (tmp_path / "junos-conf-root@2023-01-01.yang").write_text(ROOT_MODULE)
    (tmp_path / "junos-conf-class-of-service@2023-01-01.yang").write_text(MUST_MODULE)
    children = script().Deriver(tmp_path).derive("23.4R1")["tree"]["class-of-service"]["children"]
    sched = children["schedulers"]["children"]
    module = "junos-conf-class-of-service"
    assert sched["name"]["must"] == [{"must": '(".. priority")', "message": "a scheduler needs a priority",
                                      "module": module}]
    assert [m["message"] for m in sched["shaping-rate"]["must"]] == [
        "only one option (shaping-rate or transmit-rate rate-limit) can be configured at a time", "second"]
    assert sched["priority"]["must"] == [{"must": '(!(any ".. .. schedulers <*> priority $$={strict-high}"))',
                                          "message": "one", "module": module, "value": "strict-high"}]


@pytest.mark.parametrize("must,why", [('(all \\"x\\")', "unknown quantifier"),
                                      ('(\\".. .. .. .. x\\")', "climbs 4 levels"),
                                      ('(\\"a $x\\")', "unknown path word")])
def test_the_script_stops_at_a_must_it_cannot_evaluate(tmp_path: Path, must: str, why: str) -> None:
    (tmp_path / "junos-conf-root@2023-01-01.yang").write_text(ROOT_MODULE)
    text = MUST_MODULE.replace('junos:must "(\\".. priority\\")"', f'junos:must "{must}"')
    assert text != MUST_MODULE
    (tmp_path / "junos-conf-class-of-service@2023-01-01.yang").write_text(text)
    derive = script()
    with pytest.raises(derive.DeriveError, match=why):
        derive.Deriver(tmp_path).derive("23.4R1")
    xpath = MUST_MODULE.replace('junos:must "(\\".. priority\\")"', 'must "../priority"')
    (tmp_path / "junos-conf-class-of-service@2023-01-01.yang").write_text(xpath)
    with pytest.raises(derive.DeriveError, match="standard YANG must"):
        derive.Deriver(tmp_path).derive("23.4R1")


@pytest.mark.skipif(not VENDOR.is_dir(), reason="Juniper's YANG is not in .vendor/ (see the script's doc)")
def test_the_committed_grammar_data_is_what_the_script_derives(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(SCRIPT), str(VENDOR), str(tmp_path)], check=True, capture_output=True)
    for path in sorted(tmp_path.glob("junos-*.json")):
        committed = ROOT / "qosc" / "targets" / "junos" / "yang" / path.name
        assert json.loads(committed.read_text()) == json.loads(path.read_text()), path.name

"""scripts/derive-sros-grammar and the target-neutral YANG pieces it uses: its reading of a small nokia-conf-like
module set (submodules, groupings, typedef chains with units and defaults, unions, leafrefs, choices, when and
must), XSD patterns, the XPath subset, and (where Nokia's files are present in .vendor/) that the committed facts
are exactly what it derives."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType

import pytest

from qosc.grammar.xpath import Unsupported, evaluate, paths_of
from qosc.grammar.yang import Data, SchemaNode
from qosc.grammar.yangtext import xsd

ROOT = Path(__file__).resolve().parents[4]
SCRIPT = ROOT / "scripts" / "derive-sros-grammar"
VENDOR = ROOT / ".vendor" / "sros-yang"


def script() -> ModuleType:
    loader = SourceFileLoader("derive_sros_grammar", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


FILES = {
    "nokia-conf.yang": """
module nokia-conf { yang-version "1.1"; namespace "urn:nokia.com:sros:ns:yang:sr:conf"; prefix "conf";
  import nokia-sros-yang-extensions { prefix "sros-ext"; }
  include nokia-conf-qos;
  sros-ext:sros-major-release "rel26";
  revision "2026-04-22";
  container configure { uses conf-qos; uses conf-groups; } }""",
    "nokia-sros-yang-extensions.yang": """
module nokia-sros-yang-extensions { namespace "x"; prefix "sros-ext"; extension sros-major-release { argument r; } }
""",
    "nokia-conf-qos.yang": r"""
submodule nokia-conf-qos { belongs-to nokia-conf { prefix "conf"; }
  import nokia-types-qos { prefix "types-qos"; }
  revision "2026-04-22";
  grouping conf-qos { container qos {
    list network-queue { key "network-queue-policy"; max-elements 255;
      leaf network-queue-policy { type types-qos:name; }
      leaf-list apply-groups { type string; }
      list queue { key "queue-id";
        leaf queue-id { type int32 { range "1..16"; } }
        leaf cbs { type types-qos:burst; }
        leaf fc { type leafref { path "../../fc/fc-name"; } mandatory true; }
        container rate { leaf pir { type union { type uint32 { range "1..100"; } type enumeration { enum max; } } } }
        choice port { case eq { leaf eq { type int32; } } case lt { leaf lt { type int32; when "../eq = 1"; } } }
      }
      list fc { key "fc-name"; leaf fc-name { type string { pattern "(be|ef)(\.[a-z]{1,3})?"; } } }
    } } }
}""",
    "nokia-types-qos.yang": """
module nokia-types-qos { namespace "t"; prefix "types-qos"; revision "2026-03-11";
  typedef name { type string { length "1..32"; } }
  typedef kilobytes { type int32; units "kilobytes"; }
  typedef burst { type union { type kilobytes { range "0..1048576"; } type enumeration { enum auto; } }
                  default "auto"; }
}""",
}


def test_the_script_reads_a_small_module_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "26.3"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text)
    s = script()
    monkeypatch.setattr(s, "MODULES", ("nokia-conf", "nokia-conf-qos", "nokia-types-qos"))
    monkeypatch.setattr(s, "WANT", ("qos/network-queue/**",))
    data = s.Deriver(folder).derive("26.3")
    assert data["modules"] == {"nokia-conf": "2026-04-22", "nokia-conf-qos": "2026-04-22",
                               "nokia-types-qos": "2026-03-11"}
    assert data["major_release"] == "rel26" and data["namespace"] == "urn:nokia.com:sros:ns:yang:sr:conf"
    nq = data["tree"]["qos"]["children"]["network-queue"]
    assert nq["keys"] == ["network-queue-policy"] and nq["max"] == 255
    assert "apply-groups" not in nq["children"]
    queue = nq["children"]["queue"]["children"]
    assert queue["queue-id"]["type"] == {"int": [[1, 16]]}
    # the default comes down the typedef chain; a union member's units do not (RFC 7950 7.3.4)
    assert queue["cbs"] == {"kind": "leaf", "type": {"union": [{"int": [[0, 1048576]]}, {"enum": ["auto"]}]},
                            "default": "auto"}
    assert queue["fc"]["leafref"] == "qos/network-queue/fc/fc-name" and queue["fc"]["mandatory"] is True
    assert queue["fc"]["type"] == {"string": [0, None, [r"(be|ef)(\.[a-z]{1,3})?"], []]}
    assert queue["lt"]["cases"] == [["port", "lt"]] and queue["lt"]["when"] == [{"expr": "../eq = 1"}]
    assert queue["rate"]["children"]["pir"]["type"] == {"union": [{"int": [[1, 100]]}, {"enum": ["max"]}]}


def test_xsd_patterns_become_python_ones() -> None:
    assert xsd("(.*\\S.*)|()") == "(.*\\S.*)|()"
    assert xsd("a^b$") == "a\\^b\\$" and xsd("[^a]") == "[^a]"
    assert xsd("[\\p{N}\\p{L}]+") == "[0-9A-Za-z\u00c0-\uffff]+"


def _tree() -> Data:
    schema = SchemaNode.load("", {"kind": "container", "children": {"router": {"kind": "list", "keys": ["name"],
        "children": {"name": {"kind": "leaf"}, "interface": {"kind": "list", "keys": ["if"], "children": {
            "if": {"kind": "leaf"}, "mtu": {"kind": "leaf", "default": "1500"}, "port": {"kind": "leaf"}}}}}}})
    root = Data(schema)
    router = root.child(schema.children["router"], ("management",), ())
    iface = router.child(schema.children["router"].children["interface"], ("m",), ())
    port = iface.child(schema.children["router"].children["interface"].children["port"], (), ())
    port.value = "1/1/1"
    return port


def test_the_xpath_subset() -> None:
    port = _tree()
    assert evaluate("../../name = 'management'", port)
    assert not evaluate("not(../../name = 'management') and not(../if = 'system')", port)
    assert evaluate("../mtu = 1500 and count(../port) = 1", port)  # a default reads as its value
    assert evaluate("../mtu >= 1000 or ../if = 'x'", port)
    assert paths_of("not(../../name = 'a')") == [("..", "..", "name")]
    with pytest.raises(Unsupported):
        paths_of("/configure/router[name = 'Base']/interface")


@pytest.mark.skipif(not (VENDOR / "26.3").is_dir() or not (VENDOR / "25.10").is_dir(),
                    reason="Nokia's YANG is not in .vendor/sros-yang (see scripts/derive-sros-grammar)")
def test_the_committed_facts_are_what_the_script_derives(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(VENDOR), str(tmp_path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    for release in ("26.3", "25.10"):
        committed = (ROOT / "qosc/targets/sros/yang" / f"sros-{release}.json").read_text()
        assert (tmp_path / f"sros-{release}.json").read_text() == committed
        assert json.loads(committed)["release"] == release

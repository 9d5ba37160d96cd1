"""Reading SR OS back: the tree, flat and XML forms of one output read to the same statements; import(compile(P))
is P per class in every form; the GÉANT JUNOS output and its SR OS output are equivalent per class."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import readback
from qosc.behaviour.roundtrip import outputs, round_trip
from qosc.diagnostics import has_errors
from qosc.errors import InputError
from qosc.model import Policy
from qosc.targets.registry import targets
from qosc.targets.sros.read import parse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
POLICIES = [*sorted((HERE / "policies").glob("*.yaml")), ROOT / "policies" / "assured-rate.yaml"]


def _load(path: Path) -> Policy:
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    return result.policy


def _cases() -> list[tuple[Path, str]]:
    return [(p, d.name) for p in POLICIES for d in _load(p).devices if d.platform.startswith("sros-")]


CASES = _cases()
IDS = [f"{p.stem}-{d}" for p, d in CASES]


@pytest.mark.parametrize(("path", "device"), CASES, ids=IDS)
def test_tree_flat_and_xml_read_to_the_same_statements(path: Path, device: str) -> None:
    files = {o.path.rsplit(".", 1)[1]: o.text for o in outputs(_load(path), device)}
    assert set(files) == {"cfg", "flat", "xml"}
    read = {fmt: [s.texts() for s in parse(text, f"{device}.{fmt}").statements] for fmt, text in files.items()}
    assert len(read["cfg"]) > 20
    assert read["cfg"] == read["flat"] == read["xml"]
    sros = targets()["sros"]
    assert {fmt: sros.sniff(text) for fmt, text in files.items()} == {"cfg": "cfg", "flat": "flat", "xml": "xml"}


@pytest.mark.parametrize("fmt", ["cfg", "flat", "xml"])
@pytest.mark.parametrize(("path", "device"), CASES, ids=IDS)
def test_import_of_the_compiled_configuration_is_the_policy_per_class(path: Path, device: str, fmt: str,
                                                                       tmp_path: Path) -> None:
    rt = round_trip(_load(path), device, f".{fmt}", tmp_path)
    assert rt.first.behaviour is not None, rt.first.diagnostics
    assert not has_errors(rt.diagnostics), [str(d) for d in rt.diagnostics if d.is_error]
    assert rt.stage == "equiv"
    assert [f.message for f in rt.findings] == [] and rt.problems == []


def test_geant_on_junos_and_on_sros_are_equivalent_per_class() -> None:
    junos = _load(ROOT / "policies" / "geant-lbe.yaml")
    sros = _load(HERE / "policies" / "geant-lbe-sros.yaml")
    a_out = next(o for o in outputs(junos, "de1.de") if o.path.endswith(".conf"))
    b_out = next(o for o in outputs(sros, "de1.de") if o.path.endswith(".cfg"))
    a = readback.read(a_out.text, "junos.conf", "junos-m-series", "de1.de")
    b = readback.read(b_out.text, "sros.cfg", "sros-7750", "de1.de")
    assert a.behaviour is not None and b.behaviour is not None
    findings, problems = readback.equiv(a, b, {"so-1/2/0": "to-par:1/1/c1/1"})
    assert problems == []
    # per class (shares, priorities, buffers, drop curves) and per code point's class: nothing differs
    assert [f.message for f in findings if "leaves marked" not in f.message] == []
    # what does differ is the marking of code points the policy does not declare: JUNOS's rewrite rule writes
    # the class's code point on every packet of the class, SR OS keeps the DSCP of traffic from the network
    declared = {0, 8, 46, 48, 56}
    marked = {f.subject for f in findings}
    assert marked and not any(f.subject.startswith(f"DSCP {c} ") or f.subject == f"DSCP {c}" for f in findings
                              for c in declared), sorted(marked)


BAD = {
    "unbalanced": ("configure {\n    qos {\n", "ends inside a block"),
    "stray brace": ("configure {\n}\n}\n", "without its"),
    "block without a name": ("configure {\n    {\n    }\n}\n", "without a name"),
    "flat line outside configure": ("/show router interface\n", "not under /configure"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_unreadable_text_is_a_located_qos237(case: str) -> None:
    text, expected = BAD[case]
    with pytest.raises(InputError) as caught:
        parse(text, "bad.cfg")
    (d,) = caught.value.diagnostics
    assert d.code == "QOS237" and expected in d.message and d.location is not None and d.location.line >= 1

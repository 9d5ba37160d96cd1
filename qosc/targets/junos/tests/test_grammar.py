"""The junos grammar from Juniper's YANG: it accepts every JUNOS output qosc writes, for both releases, and
refuses what the box would refuse or silently override."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.targets import junos
from qosc.targets.junos.grammar import GRAMMAR, YANG
from qosc.targets.junos.lower import lower_device
from qosc.targets.registry import platform
from qosc.tree import Document, Statement, integer, kw, name, percent, rate, stmt

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
POLICIES = [ROOT / "policies" / "geant-lbe.yaml", ROOT / "policies" / "assured-rate.yaml",
            HERE / "policies" / "every-feature.yaml"]


def documents(path: Path) -> list[Document]:
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    out = []
    for device in result.policy.devices:
        data = platform(device.platform)
        if isinstance(data, junos.JunosPlatform):
            plan = junos.device_plan(result.policy, device, data)
            out.append(lower_device(result.policy, device, plan))
    return out


def count(statements: tuple[Statement, ...]) -> int:
    return sum(1 + count(s.children or ()) for s in statements)


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.stem)
def test_every_output_is_accepted_by_the_yang_of_both_releases(path: Path, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    docs = documents(path)
    assert docs
    for doc in docs:
        assert count(doc.statements) > 40
        assert grammar.check(doc) == [], doc.stem


def test_the_releases_and_modules_are_named() -> None:
    assert {g.release for g in YANG} == {"23.4R1", "17.4R1"}
    for g in YANG:
        assert g.data["modules"]["junos-conf-class-of-service"] in ("2023-01-01", "2017-01-01")
        assert "junos-conf-firewall" in str(g.source) and g.release in str(g.source)


def _doc(*statements: Statement) -> Document:
    return Document("t", "junos", statements)


def _cos(*children: Statement) -> Document:
    return _doc(stmt("class-of-service", children=children))


def _scheduler(*children: Statement) -> Document:
    return _cos(stmt("schedulers", children=[stmt(name("be"), children=children)]))


LONG = "x" * 65
REFUSED = {
    "misspelled keyword": (_scheduler(stmt("transmit-rat", "percent", percent(5, "5"))), "not a statement"),
    "misspelled container": (_doc(stmt("class-of-servic", children=[])), "not a statement"),
    "out of range": (_cos(stmt("drop-profiles", children=[stmt(name("d"), children=[
        stmt("fill-level", integer(50), "drop-probability", integer(101))])])), "outside 0..100"),
    "bad enum": (_cos(stmt("classifiers", children=[stmt("dscp", name("c"), children=[
        stmt("forwarding-class", name("be"), children=[stmt("loss-priority", kw("medium"), "code-points",
                                                            kw("ef"))])])])), "is not one of"),
    "over-long forwarding class": (_cos(stmt("forwarding-classes", children=[
        stmt("queue", integer(0), name(LONG))])), "more than 64"),
    "over-long filter": (_doc(stmt("firewall", children=[stmt("family", "inet", children=[
        stmt("filter", name(LONG), children=[stmt("interface-specific")])])])), "refused pattern"),
    "reserved filter name": (_doc(stmt("firewall", children=[stmt("family", "inet", children=[
        stmt("filter", name("__mine"), children=[stmt("interface-specific")])])])), "refused pattern"),
    "leaf conflict": (_cos(stmt("interfaces", children=[stmt(name("ge-1/1/0"), children=[
        stmt("scheduler-map", name("a")), stmt("scheduler-map", name("b"))])])), "the box keeps the last"),
    "two cases of one choice": (_scheduler(stmt("transmit-rate", "percent", percent(5, "5")),
                                           stmt("transmit-rate", "remainder")), "two cases of choice"),
    "missing value": (_scheduler(stmt("priority")), "needs a value"),
}
ACCEPTED = {
    "misspelled keyword": _scheduler(stmt("transmit-rate", "percent", percent(5, "5"))),
    "out of range": _cos(stmt("drop-profiles", children=[stmt(name("d"), children=[
        stmt("fill-level", integer(50), "drop-probability", integer(100))])])),
    "over-long forwarding class": _cos(stmt("forwarding-classes", children=[
        stmt("queue", integer(0), name("x" * 64))])),
    "leaf conflict": _cos(stmt("interfaces", children=[stmt(name("ge-1/1/0"), children=[
        stmt("scheduler-map", name("a")), stmt("scheduler-map", name("a")), stmt("shaping-rate", rate(10**9))])])),
    "two cases of one choice": _scheduler(stmt("transmit-rate", "percent", percent(5, "5"), "exact")),
}


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_yang_grammar_refuses(case: str, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    doc, why = REFUSED[case]
    found = grammar.check(doc)
    assert found and any(why in v.message for v in found), [str(v) for v in found]
    assert all(v.source is not None and v.source.release == release for v in found)


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_the_yang_grammar_accepts_the_correct_form(case: str, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    assert grammar.check(ACCEPTED[case]) == []


def test_documented_checks_where_the_yang_is_silent() -> None:
    doc = _scheduler(stmt("priority", kw("urgent")))
    assert all(g.check(doc) == [] for g in YANG)  # the YANG types priority as a string
    assert any("urgent" in v.message for v in GRAMMAR.check(doc))


def test_dangling_references_are_refused() -> None:
    doc = _cos(stmt("interfaces", children=[stmt(name("ge-1/1/0"), children=[stmt("scheduler-map", name("nowhere"))])]))
    assert any("scheduler map 'nowhere'" in v.message for v in GRAMMAR.check(doc))


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.stem)
def test_xml_from_the_tree_equals_xml_from_the_curly_text(path: Path) -> None:
    """One tree, three forms: the XML push builds from the .conf text is the XML of the tree itself."""
    from lxml import etree

    from qosc.targets.junos import serialize
    from qosc.targets.junos.push.xml import to_xml
    for doc in documents(path):
        xml = serialize.netconf_xml(doc)
        assert "<class-of-service" in xml and "<scheduler-maps>" in xml
        assert xml == etree.tostring(to_xml(serialize.curly(doc).text), pretty_print=True, encoding="unicode")

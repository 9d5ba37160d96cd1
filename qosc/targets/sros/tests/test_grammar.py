"""The sros grammar from Nokia's nokia-conf YANG: it accepts every output qosc writes for both releases, and
refuses wrong paths, keys, enumerations, ranges, missing mandatory leaves, dangling policy names and `when`."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.grammar.kit import mutations, refusals
from qosc.pipeline import lower, select
from qosc.targets.sros.grammar import GRAMMAR, YANG
from qosc.tree import Document, Kind, Statement, Word, integer, kw, name, stmt

HERE = Path(__file__).resolve().parent
POLICIES = sorted((HERE / "policies").glob("*.yaml"))


def documents(path: Path) -> list[Document]:
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    out: list[Document] = []
    for target, unit in select(result.policy):
        if target.name == "sros":
            found, lowered = lower(target, result.policy, unit)
            assert not [d for d in found if d.is_error], found
            assert lowered is not None
            out += lowered.documents
    assert out
    return out


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.stem)
def test_every_output_is_accepted_by_the_yang_of_both_releases(path: Path, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    for doc in documents(path):
        assert grammar.check(doc) == [], doc.stem


def test_the_releases_and_modules_are_named() -> None:
    assert [g.release for g in YANG] == ["26.3", "25.10"]
    assert {g.data["major_release"] for g in YANG} == {"rel26", "rel25"}
    for g in YANG:
        assert set(g.data["modules"]) >= {"nokia-conf", "nokia-conf-qos", "nokia-types-qos"}
        assert g.data["namespace"] == "urn:nokia.com:sros:ns:yang:sr:conf"
        assert g.release in str(g.source) and "nokia-conf@" in str(g.source)


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.stem)
def test_the_kit_refuses_every_wrong_variant_of_every_line(path: Path) -> None:
    for doc in documents(path):
        refused, accepted = refusals(YANG[0], doc)
        assert refused == []
        assert accepted == [], [str(m) for m in accepted[:5]]
        kinds = {m.category for m in mutations(YANG[0], doc)}
        assert kinds >= {"path", "key", "enum", "range", "length"}


def _doc(*statements: Statement) -> Document:
    return Document("t", "sros", statements)


def _nq(*children: Statement) -> Document:
    return _doc(stmt("qos", children=[stmt("network-queue", name("nq"), children=children)]))


def _port(text: str) -> Word:
    return Word(Kind.ADDRESS, text, text)


REFUSED = {
    "wrong path": (_nq(stmt("queue", integer(1), children=[stmt("queue-typ", kw("expedited"))])), "not a statement"),
    "key out of range": (_nq(stmt("queue", integer(17), children=[])), "outside 1..16"),
    "wrong enum": (_nq(stmt("queue", integer(1), "queue-type", kw("strict"))), "is not one of"),
    "value out of range": (_nq(stmt("queue", integer(1), "rate", "cir", integer(101))), "outside 0..100"),
    "too long a name": (_doc(stmt("qos", "network-queue", name("n" * 33))), "more than 32"),
    "fc not a class": (_nq(stmt("fc", name("gold"), "queue", integer(1))), "is not one of"),
    "leaf set twice": (_nq(stmt("queue", integer(1), "queue-type", kw("expedited")),
                           stmt("queue", integer(1), "queue-type", kw("best-effort"))), "set to expedited and to"),
    "mandatory missing": (_doc(stmt("qos", "network", name("n"), "ingress", "dscp", kw("ef"), "fc", name("ef"))),
                          "lacks its mandatory profile"),
    "dangling policy": (_doc(stmt("qos", "network-queue", name("nq")),
                             stmt("port", _port("1/1/1"), "ethernet", "network", "egress", "queue-policy",
                                  name("other"))), "names no qos/network-queue entry"),
    "when false": (_doc(stmt("router", name("management"), "interface", name("m"), "port", _port("1/1/1"))),
                   "`when"),
    "router interface starting with a digit": (_doc(stmt("router", name("Base"), "interface", name("1x"), "qos",
                                                         "network-policy", name("p"))), "must start with a letter"),
    "two cases of a choice": (_doc(stmt("qos", "sap-ingress", name("s"), "ip-criteria", "entry", integer(10),
                                        children=[stmt("match", "dst-port", "eq", integer(1)),
                                                  stmt("match", "dst-port", "lt", integer(5))])), "two cases"),
    "slope start above max": (_doc(stmt("qos", "slope-policy", name("s"), "high-slope", children=[
        stmt("start-avg", integer(50)), stmt("max-avg", integer(40))])), "above max-avg"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_grammar_refuses(case: str) -> None:
    doc, expected = REFUSED[case]
    found = GRAMMAR.check(doc)
    assert any(expected in v.message for v in found), [str(v) for v in found]


def test_the_constraints_are_stored_and_the_unevaluable_listed() -> None:
    stored = YANG[0].constraints_listed()
    assert ("router/interface/port", "when",
            "not(../../router-name = 'management') and not(../interface-name = 'system')") in stored
    assert YANG[0].unevaluable() == []

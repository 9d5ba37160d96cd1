"""Juniper's junos:must constraints (issue 26): the grammar evaluates them, and qosc's output never breaks one.

Each must named here is quoted from Juniper's YANG (junos-conf-class-of-service
and junos-conf-interfaces, 23.4R1 and 17.4R1) and carried by the derived grammar data.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.targets import junos
from qosc.targets.junos.grammar import YANG, JunosGrammar
from qosc.targets.junos.lower import lower_device
from qosc.targets.junos.must import Configuration, MustError, parse
from qosc.targets.junos.must import Path as MustPath
from qosc.targets.registry import platform
from qosc.tree import Document, Statement, integer, kw, name, percent, stmt

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
EXCESS = "Cannot specify excess-priority with transmit-rate exact/rate-limit or strict-high priority"


def _doc(*statements: Statement) -> Document:
    return Document("t", "junos", statements)


def _scheduler(*children: Statement) -> Document:
    return _doc(stmt("class-of-service", children=[stmt("schedulers", children=[stmt(name("s"), children=children)])]))


def _exact() -> Statement:
    return stmt("transmit-rate", "percent", percent(20, "20"), "exact")


REFUSED = {
    # junos-conf-class-of-service, schedulers excess-priority: exact with excess-priority high|low|medium-*
    "exact with excess-priority": (_scheduler(_exact(), stmt("priority", kw("high")),
                                              stmt("excess-priority", kw("high"))), EXCESS),
    # the same must: priority strict-high ($$={strict-high}) with an excess priority
    "strict-high with excess-priority": (_scheduler(stmt("transmit-rate", "percent", percent(10, "10")),
                                                    stmt("priority", kw("strict-high")),
                                                    stmt("excess-priority", kw("low"))), EXCESS),
    # schedulers shaping-rate: !(".. transmit-rate exact" && ".. shaping-rate")
    "exact with shaping-rate": (_scheduler(_exact(), stmt("shaping-rate", "percent", percent(30, "30"))),
                                "shaping-rate or transmit-rate exact"),
    # classifiers dscp name (a list key): ".. forwarding-class" || ".. import"
    "empty classifier": (_doc(stmt("class-of-service", children=[stmt("classifiers", children=[
        stmt("dscp", name("c"), children=[])])])), "At least one 'forwarding class' or 'import'"),
    # class-of-service interfaces interface name: a unit's scheduler-map needs `interfaces $$ per-unit-scheduler`
    # (or hierarchical/shared) once `interfaces $$` exists: any ".. unit <*> scheduler-map", $$, ..
    "unit scheduler-map without per-unit-scheduler": (_doc(
        stmt("class-of-service", children=[stmt("interfaces", children=[stmt(name("ge-0/0/0"), children=[
            stmt("unit", integer(0), children=[stmt("scheduler-map", name("m"))])])])]),
        stmt("interfaces", children=[stmt(name("ge-0/0/0"), children=[stmt("unit", integer(0), children=[
            stmt("family", "inet", children=[stmt("filter", children=[stmt("input", name("f"))])])])])])),
        "for this interface is required for scheduler map on interface unit"),
    # firewall family inet filter accounting-profile: ("accounting-options filter-profile"), a node qosc never
    # writes: the must folds to false, so the leaf is refused wherever it appears
    "accounting-profile without accounting-options": (_doc(stmt("firewall", children=[stmt("family", "inet", children=[
        stmt("filter", name("f"), children=[stmt("accounting-profile", name("a"))])])])),
        "referenced accounting profile must be defined"),
}
ACCEPTED = {
    "exact with excess-priority": _scheduler(_exact(), stmt("priority", kw("high"))),
    "exact with excess-priority none": _scheduler(_exact(), stmt("priority", kw("high")),
                                                  stmt("excess-priority", kw("none"))),
    "strict-high with excess-priority": _scheduler(stmt("transmit-rate", "percent", percent(10, "10")),
                                                   stmt("priority", kw("strict-high"))),
    "not exact with excess-priority": _scheduler(stmt("transmit-rate", "percent", percent(20, "20")),
                                                 stmt("priority", kw("high")), stmt("excess-priority", kw("high"))),
    "unit scheduler-map without per-unit-scheduler": _doc(
        stmt("class-of-service", children=[stmt("interfaces", children=[stmt(name("ge-0/0/0"), children=[
            stmt("unit", integer(0), children=[stmt("scheduler-map", name("m"))])])])]),
        stmt("interfaces", children=[stmt(name("ge-0/0/0"), children=[stmt("per-unit-scheduler")])])),
}


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_grammar_refuses_what_a_junos_must_refuses(case: str, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    doc, message = REFUSED[case]
    found = grammar.check(doc)
    assert any(message in v.message for v in found), [str(v) for v in found]
    must = next(v for v in found if message in v.message)
    assert must.source is not None and must.source.release == release
    assert must.source.module.startswith("junos-conf-") and must.source.revision in ("2023-01-01", "2017-01-01")


@pytest.mark.parametrize("release", [g.release for g in YANG])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_the_grammar_accepts_what_the_must_allows(case: str, release: str) -> None:
    grammar = next(g for g in YANG if g.release == release)
    assert grammar.check(ACCEPTED[case]) == []


def test_every_form_of_the_musts_is_parsed_and_unknown_forms_are_refused() -> None:
    assert parse('(".. .. a b" && !(any "x <p*> $$={v}"))') is not None
    for bad in ('all "a"', '"a" & "b"', '"a $x"', '"<*> a"', '""', '("a"'):
        with pytest.raises(MustError):
            parse(bad)
    for g in YANG:  # the data carries musts, and every one of them parses
        assert sum(len(n.musts) for n in _nodes(g.root)) > 100


def test_musts_through_nodes_outside_the_grammar_are_folded_away() -> None:
    """A path through a node the derived tree does not have can never hold in a document the grammar accepts, so
    such a must is constant: of the 13 musts of `class-of-service interfaces <name>` (23.4R1), those about
    traffic-control profiles, forwarding-class maps, virtual channels and an interface-level forwarding class are
    always true and not evaluated."""
    grammar = next(g for g in YANG if g.release == "23.4R1")
    node = grammar.root.children["class-of-service"].children["interfaces"].children["interface"].children["name"]
    derived = grammar.data["tree"]["class-of-service"]["children"]["interfaces"]["children"]["interface"]
    assert len(derived["children"]["name"]["must"]) == 13
    kept = [m.message for m in node.musts]
    assert len(kept) == 4 and all("scheduler" in m or "bandwidth" in m for m in kept), kept


def _nodes(node):  # type: ignore[no-untyped-def]
    yield node
    for child in node.children.values():
        yield from _nodes(child)


def test_paths_climb_from_the_node_and_read_its_value_and_enclosing_keys() -> None:
    ifd, unit = ("interfaces", "ge-0/0/0"), ("interfaces", "ge-0/0/0", "unit", "5")
    leaf = (*unit, "description")
    config = Configuration(parents={("interfaces",): (), ifd: ("interfaces",), unit: ifd, leaf: unit},
                           values=[(leaf, "x")], lists=[(*ifd, "unit")],
                           entries={ifd: ("interface", "ge-0/0/0"), unit: ("unit", "5")})
    assert config.holds(parse('".. .. unit"'), leaf, "x")
    assert config.holds(parse('"interfaces ${interface} unit 5 description $$"'), leaf, "x")
    assert not config.holds(parse('"interfaces ${interface} unit 5 description $$"'), leaf, "y")
    assert not config.holds(parse('"interfaces ${unit} unit 5"'), leaf, "x")
    assert config.holds(parse('".. description $$={x}"'), leaf, "x")
    assert not config.holds(parse('".. description $$={y}"'), leaf, "x")
    assert config.holds(parse('any "interfaces <ge-*> unit <*>"'), leaf, None)
    assert config.holds(parse('any "interfaces <*> unit <5> description x"'), leaf, None)
    assert not config.holds(parse('any "interfaces <xe-*> unit <*>"'), leaf, None)
    assert not config.holds(parse('"chassis network-services enhanced-ip"'), leaf, None)
    assert config.holds(parse('"interfaces ge-0/0/0 unit"'), leaf, None)  # a keyword list with an entry
    assert parse('".. .. a"') == MustPath(2, ("a",))


def _policy(tmp_path: Path, queue: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent(f"""\
        qosc: 1
        name: exact
        services:
          be: {{kind: best-effort, default: true, queue: {{share: 70%, priority: low}}}}
          capped: {{kind: assured, dscp: [af21], queue: {queue}}}
        devices:
          mx1:
            platform: junos-mx
            interfaces:
              xe-0/0/0: {{role: core, speed: 10G}}
        """), encoding="utf-8")
    return path


@pytest.mark.parametrize("queue", ["{share: 20%, rate-cap: 20%, priority: high}",
                                   "{share: 20%, ceiling: 20%, priority: medium-low}",
                                   "{share: 20%, rate-cap: 20%, ceiling: 20%, priority: low}"])
def test_a_class_capped_at_its_share_is_exact_without_an_excess_priority_on_mx(tmp_path: Path, queue: str) -> None:
    """Issue 26: `transmit-rate percent 20 exact` came with `excess-priority high`, which commit refuses."""
    result = api.validate(_policy(tmp_path, queue))
    assert result.ok, [str(d) for d in result.diagnostics]
    outputs = {o.path: o.text for o in api.compile_policy(result, ["junos"])}
    assert not [d for d in result.diagnostics if d.is_error], [str(d) for d in result.diagnostics]
    conf = outputs["junos/mx1.conf"]
    capped = re.search(r"\n        capped \{\n(.*?)\n        \}", conf, re.DOTALL)
    assert capped is not None, conf
    assert "transmit-rate percent 20 exact;" in capped.group(1)
    assert "excess-priority" not in capped.group(1)
    assert "excess-priority low;" in conf  # the class that may borrow keeps its excess priority


def _sources() -> list[Path]:
    return sorted([*ROOT.glob("policies/*.yaml"), *ROOT.glob("examples/*.yaml"), *HERE.glob("policies/*.yaml")])


@pytest.mark.parametrize("plat", ["junos-mx", "junos-m-series", "junos-acx"])
@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.stem)
def test_no_output_breaks_a_must_on_either_platform_or_release(tmp_path: Path, path: Path, plat: str) -> None:
    """Every reference policy, example and the every-feature policy, each device moved to either JUNOS platform
    (where the policy fits it): the whole junos grammar, musts included, accepts the output for both releases."""
    text = re.sub(r"platform: (junos-mx|junos-m-series|ios-gsr|ios-xe|catalyst6500)\b", f"platform: {plat}",
                  path.read_text(encoding="utf-8"))
    (tmp_path / ".qosc-root").write_text("")  # includes (examples/grid-hosts-untuned.yaml) resolve beside it
    for sibling in ("policies", "examples"):
        (tmp_path / sibling).mkdir(exist_ok=True)
        for other in (ROOT / sibling).glob("*.yaml"):
            (tmp_path / sibling / other.name).write_text(re.sub(
                r"platform: (junos-mx|junos-m-series|ios-gsr|ios-xe|catalyst6500)\b", f"platform: {plat}",
                other.read_text(encoding="utf-8")), encoding="utf-8")
    moved = tmp_path / path.parent.name / path.name
    moved.parent.mkdir(exist_ok=True)
    moved.write_text(text, encoding="utf-8")
    result = api.validate(moved)
    assert result.policy is not None
    lowered = 0
    for device in result.policy.devices:
        data = platform(device.platform)
        if not isinstance(data, junos.JunosPlatform):
            continue
        plan = junos.device_plan(result.policy, device, data)
        if any(p.severity == "error" for p in plan.problems):
            continue  # the policy does not fit this platform (say, strict priority on M-series)
        doc = lower_device(result.policy, device, plan)
        lowered += 1
        grammar = JunosGrammar.for_platform(data)
        assert grammar.check(doc) == [], (device.name, [str(v) for v in grammar.check(doc)])
    assert lowered or plat == "junos-m-series" or all(d.platform == "linux" for d in result.policy.devices)

"""The Cisco targets through the contract: typed statement trees with origins, one grammar per dialect, a
mechanical IOS CLI serializer with its source map, and the reader that parses the text back into the same tree."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qosc.diagnostics import Location
from qosc.model import Policy
from qosc.targets.base import Target
from qosc.targets.ios.grammar import GRAMMARS
from qosc.targets.ios.read.parse import parse
from qosc.targets.ios.serialize import cli
from qosc.targets.ios.tests.support import load
from qosc.targets.registry import targets
from qosc.tree import Document, Kind, Statement, dscp, kw, name, rate, stmt, walk

ROOT = Path(__file__).resolve().parents[4]
POLICIES = [*sorted((ROOT / "policies").glob("*.yaml")), ROOT / "examples/datagrid-gsr-seed.yaml"]
CISCO = ("ios-mqc", "catalyst6500")


def cisco_documents() -> Iterator[tuple[str, Target, Policy, Document]]:
    for path in POLICIES:
        policy, _ = load(path)
        for device in policy.devices:
            for target_name in CISCO:
                target = targets()[target_name]
                if device.platform in target.platforms:
                    lowered = target.lower(policy, device, target.platform_data[device.platform])
                    (doc,) = lowered.documents
                    yield f"{path.stem}/{device.name}", target, policy, doc


CASES = list(cisco_documents())
IDS = [c[0] for c in CASES]


def test_every_reference_device_has_a_cisco_tree() -> None:
    assert {doc.dialect for *_, doc in CASES} == {"ios-gsr", "ios-xe", "catalyst6500"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_tree_is_accepted_typed_and_serialized_as_rendered(case: tuple[str, Target, Policy, Document]) -> None:
    _, target, policy, doc = case
    assert GRAMMARS[doc.dialect].check(doc) == []
    kinds: dict[str, set[Kind]] = {}
    for path in walk(doc.statements):
        s = path[-1]
        texts = s.texts()
        for w in s.words:
            kinds.setdefault(w.kind.value, set()).add(w.kind)
            if w.kind is Kind.DSCP:
                assert 0 <= w.value <= 63
        if texts[0] == "police" and texts[1:2] != ("aggregate",):
            numbers = [w for w in s.words if w.text.isdigit()]
            assert numbers[0].kind is Kind.RATE and numbers[0].value == int(numbers[0].text)
            assert Kind.SIZE in {w.kind for w in numbers}
        if texts[:1] == ("bandwidth",) and texts[1].isdigit():  # kbit/s
            assert s.words[1].kind is Kind.RATE and s.words[1].value == 1000 * int(texts[1])
        if texts[:2] == ("match", "dscp") or texts[:3] == ("match", "ip", "dscp"):
            assert all(w.kind is Kind.DSCP for w in s.words if w.text not in ("match", "ip", "dscp"))
        if texts[:1] in (("class",), ("service-policy",)):
            assert s.words[-1].kind is Kind.NAME
    assert "keyword" in kinds and "name" in kinds
    # the document is what the target writes, line by line, each statement line with its policy origin
    (out,) = target.render(target.lower(policy, policy.device_map[doc.stem],
                                        target.platform_data[policy.device_map[doc.stem].platform]))
    rendered = cli(doc)
    assert rendered.text == out.text
    for number, line in enumerate(out.text.splitlines(), 1):
        where = out.origin(number)
        if line in ("!", "end"):
            assert where is None
        else:
            assert isinstance(where, Location) and Path(where.file).resolve() in {p.resolve() for p in POLICIES}, line


def _shape(statements: tuple[Statement, ...] | None) -> list[object]:
    return [((tuple((w.kind, w.text, w.value) for w in s.words)), _shape(s.children)) for s in statements or ()]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_reader_parses_the_serialized_tree_back_to_the_same_words(case: tuple[str, Target, Policy, Document]
                                                                  ) -> None:
    _, target, _, doc = case
    platform = target.platform_data[doc.dialect]
    back = parse(cli(doc).text, f"{doc.stem}.cfg", platform)
    assert back.dialect == doc.dialect
    assert _shape(back.statements) == _shape(doc.statements)
    # origins of the parsed tree are the lines of the text
    assert all(isinstance(p[-1].origin, Location) for p in walk(back.statements))


def test_serializer_layout_and_source_map() -> None:
    here = Location("p.yaml", 7, 3)
    doc = Document("r1", "ios-xe", (
        stmt("mls", "qos", origin=here),
        stmt("class-map", "match-any", name("c1"), children=[stmt("match", "dscp", dscp(46, "ef"))],
             origin=Location("p.yaml", 9, 5)),
        stmt("policy-map", name("p"), children=[
            stmt("class", name("c1"), children=[stmt("police", "cir", rate(8000), origin=Location("p.yaml", 12, 1))],
                 comment=("strict", "capped")),
        ]),
    ), header=("qosc policy x",), origin=Location("p.yaml", 1, 1))
    out = cli(doc)
    assert out.text == ("! qosc policy x\n!\nmls qos\n!\nclass-map match-any c1\n match dscp ef\n!\n"
                        "policy-map p\n class c1\n  ! strict\n  ! capped\n  police cir 8000\n!\nend\n")
    lines = [(o.line if o else None) for o in (out.origin(i) for i in range(1, len(out.text.splitlines()) + 1))]
    assert lines == [1, None, 7, None, 9, 9, None, None, None, None, None, 12, None, None]


def test_grammar_refuses_what_the_dialect_has_not() -> None:
    xe, gsr = GRAMMARS["ios-xe"], GRAMMARS["ios-gsr"]
    pm = stmt("policy-map", name("p"), children=[stmt("class", name("c1"),
                                                      children=[stmt("set", "dscp", dscp(46, "ef"))])])
    cm = stmt("class-map", "match-any", name("c1"), children=[stmt("match", "dscp", dscp(46, "ef"))])
    assert xe.check(Document("r", "ios-xe", (cm, pm))) == []
    # 12.0S marks with `set ip dscp` and classifies with `match ip dscp`: the same tree is refused on ios-gsr
    refused = gsr.check(Document("r", "ios-gsr", (cm, pm)))
    assert {v.words() for v in refused} == {"class-map match-any c1 match dscp ef",
                                            "policy-map p class c1 set dscp ef"}
    # a value out of its documented range names the rule's source (release-keyed: the dialect's table)
    big = stmt("policy-map", name("p"), children=[stmt("class", name("class-default"),
                                                       children=[stmt("bandwidth", rate(2_000_001_000, "2000001"))])])
    (v,) = gsr.check(Document("r", "ios-gsr", (big,)))
    assert "2000001 is outside 8..2000000" in v.message and v.source is not None
    assert "ios-gsr table [bandwidth-kbps]" in str(v.source)
    # a class used but never defined, a class-map defined twice, a statement in the wrong mode, a leaf with
    # children, a comment that would end in white space
    found = [str(v) for v in xe.check(Document("r", "ios-xe", (
        pm, cm, cm, stmt("bandwidth", "percent", "10"),
        stmt("interface", name("Gi0/0"), children=[stmt("service-policy", "output", name("p"),
                                                         children=[stmt("x")])]),
        stmt("policy-map", name("q"), children=[stmt("class", name("nothing"), comment=("why ",))]),
    )))]
    assert any("class-map c1 is defined twice" in f for f in found)
    assert any("`bandwidth percent 10`: not valid in global mode" in f for f in found)
    assert any("takes no sub-statements" in f for f in found)
    assert any("class-map nothing is used but never defined" in f for f in found)
    assert any("trailing or tab white space" in f for f in found)
    assert xe.words("global", ["frobnicate", "12"]) == (kw("frobnicate"), xe.words("global", ["12"])[0])


def test_diff_names_the_policy_line_of_a_changed_cisco_line(tmp_path: Path) -> None:
    changed = tmp_path / "datagrid-gsr.yaml"
    text = (ROOT / "policies/datagrid-gsr.yaml").read_text(encoding="utf-8")
    assert "queue: {share: 72%, priority: low}" in text
    changed.write_text(text.replace("queue: {share: 72%, priority: low}", "queue: {share: 70%, priority: low}"),
                       encoding="utf-8")
    number = text[:text.index("share: 72%")].count("\n") + 1
    proc = subprocess.run([sys.executable, "-m", "qosc", "diff", "policies/datagrid-gsr.yaml", str(changed)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    hunk = next(line for line in proc.stdout.splitlines() if line.startswith("@@") and "72" not in line
                and f"datagrid-gsr.yaml:{number}" in line)
    assert f"{changed}:{number}" in hunk
    assert "-  bandwidth percent 72" in proc.stdout and "+  bandwidth percent 70" in proc.stdout

"""The conformance suite every target runs: one table of data per target, one set of tests (the way NAPALM's shared
driver tests and sqlglot's per-dialect tables work), so a target is added by declaring data, not by copying tests.

For each target and each policy that reaches it (the reference policies, and the feature-covering policies a
target declares in FEATURES): every statement tree it lowers is accepted by its grammar, compiling twice gives
the same bytes, every output it can read back reads without errors, and where its grammar is made of YANG-derived
facts (qosc.grammar.yang.YangSchema), the conformance kit (qosc.grammar.kit) makes a wrong path, key,
enumeration, range and length of every line and proves each refused.  tests/test_fields.py is the field half of
the contract (every field rendered or refused, per target), qosc/behaviour/tests/test_round_trip.py the
import(compile(P)) half.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import pipeline
from qosc.grammar.kit import refusals
from qosc.grammar.yang import YangSchema
from qosc.model import Policy
from qosc.targets.registry import targets

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = sorted((ROOT / "policies").glob("*.yaml"))
FEATURES: dict[str, list[Path]] = {
    "junos": [ROOT / "qosc/targets/junos/tests/policies/every-feature.yaml"],
    "sros": sorted((ROOT / "qosc/targets/sros/tests/policies").glob("*.yaml")),
    "iosxr": sorted((ROOT / "qosc/targets/iosxr/tests/policies").glob("*.yaml")),
}
"""Feature-covering policies a target declares beside the reference policies."""


def _load(path: Path) -> Policy:
    result = pipeline.validate(path)
    assert result.policy is not None, result.diagnostics
    return result.policy


def _cases() -> list[tuple[str, Path]]:
    out = []
    for name, target in targets().items():
        for path in REFERENCE + FEATURES.get(name, []):
            policy = _load(path)
            units = policy.hosts if target.serves == "hosts" else policy.devices
            platforms = {getattr(u, "platform", None) or getattr(u, "target_platform", None) for u in units}
            if platforms & set(target.platforms) or (target.serves == "hosts" and policy.hosts):
                out.append((name, path))
    return out


CASES = _cases()


def _lowered(name: str, path: Path) -> list[tuple[object, object]]:
    policy = _load(path)
    target = targets()[name]
    found = []
    for t, unit in pipeline.select(policy):
        if t is not target:
            continue
        diags, lowered = pipeline.lower(target, policy, unit)
        if lowered is None or any(d.is_error for d in diags):
            continue
        found.append((unit, lowered))
    return found


def test_every_target_is_in_the_suite() -> None:
    assert {name for name, _ in CASES} == set(targets())


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{n}-{p.stem}" for n, p in CASES])
def test_every_tree_is_accepted_by_the_grammar_and_recompiles_byte_identical(name: str, path: Path) -> None:
    target = targets()[name]
    policy = _load(path)
    lowered = _lowered(name, path)
    assert lowered, f"{name} compiles nothing of {path.name}"
    for unit, low in lowered:
        for doc in low.documents:  # type: ignore[attr-defined]
            grammar = next(g for g in target.grammars if g.dialect == doc.dialect)
            assert grammar.check(doc) == [], (unit, doc.stem)
        first, problems = pipeline.render(target, policy, unit, low)
        assert not problems, problems
        again, _ = pipeline.render(target, _load(path), unit, pipeline.lower(target, _load(path), unit)[1])
        assert [(o.path, o.text) for o in first] == [(o.path, o.text) for o in again]


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{n}-{p.stem}" for n, p in CASES])
def test_every_output_the_target_reads_reads_back_without_errors(name: str, path: Path) -> None:
    target = targets()[name]
    if not target.reads:
        pytest.skip(f"{name} reads nothing back")
    policy = _load(path)
    for unit, low in _lowered(name, path):
        outputs, _ = pipeline.render(target, policy, unit, low)
        platform = target.platform_data[getattr(unit, "platform", "")] if hasattr(unit, "platform") else None
        for output in outputs:
            shown = target.shown(output) if target.sniff(output.text) is not None else None
            if shown is None or target.sniff(shown) is None:
                continue
            doc = target.parse(shown, output.path, platform)  # type: ignore[arg-type]
            behaviour, found = target.interpret(doc, platform)  # type: ignore[arg-type]
            assert behaviour.interfaces, output.path
            assert not [d for d in found if d.is_error], (output.path, found)


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{n}-{p.stem}" for n, p in CASES])
def test_a_yang_derived_grammar_refuses_every_wrong_variant_of_every_line(name: str, path: Path) -> None:
    schemas = [y for g in targets()[name].grammars for y in getattr(g, "yang", ())
               if isinstance(y, YangSchema) or (hasattr(y, "walk") and hasattr(y, "roles"))]
    if not schemas:
        pytest.skip(f"{name}'s grammar is not made of qosc.grammar.yang facts")
    for _, low in _lowered(name, path):
        for doc in low.documents:  # type: ignore[attr-defined]
            for schema in schemas:
                refused, accepted = refusals(schema, doc)
                assert refused == [] and accepted == [], (schema.release, refused[:3], [str(m) for m in accepted[:3]])

"""Behaviour (qosc.behaviour): the policy's intent per device, compared and lifted back into a policy.

These test the vendor-neutral core of read-back on the intent alone; each
target's tests add parse + interpret of its own dialect on top (the round
trip import(compile(P)) == P per device).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from qosc import api
from qosc.behaviour import Curve, Envelope, compare, intent
from qosc.behaviour.lift import lift

ROOT = Path(__file__).resolve().parent.parent
POLICIES = sorted(p.name for p in (ROOT / "policies").glob("*.yaml"))


def _policy(name: str):  # type: ignore[no-untyped-def]
    result = api.validate(ROOT / "policies" / name)
    assert result.policy is not None and result.ok
    return result.policy


@pytest.mark.parametrize("name", POLICIES)
def test_intent_lifted_into_a_policy_behaves_like_the_original(name: str, tmp_path: Path) -> None:
    policy = _policy(name)
    if not policy.devices:
        pytest.skip("hosts only")
    lifted = lift([intent.device(policy, d) for d in policy.devices], "lifted")
    assert lifted.diagnostics == []
    path = tmp_path / "lifted.yaml"
    path.write_text(yaml.safe_dump(lifted.policy, sort_keys=False), encoding="utf-8")
    again = api.validate(path)
    assert again.ok and again.policy is not None, [d.message for d in again.diagnostics if d.is_error]
    for device in policy.devices:
        back = again.policy.device_map[device.name]
        findings = compare(intent.device(policy, device), intent.device(again.policy, back))
        assert findings == [], [f.message for f in findings]


def _mutated(name: str, change):  # type: ignore[no-untyped-def]
    policy = _policy(name)
    device = policy.devices[0]
    want = intent.device(policy, device)
    iface = want.interfaces[0]
    got = dataclasses.replace(want, interfaces=(change(iface), *want.interfaces[1:]))
    return want, [f.message for f in compare(want, got)]


def test_one_changed_share_is_named_by_device_interface_and_service() -> None:
    def change(iface):  # type: ignore[no-untyped-def]
        lbe = next(c for c in iface.classes if c.name == "ip-premium")
        return dataclasses.replace(iface, classes=tuple(dataclasses.replace(c, share=80.0) if c is lbe else c
                                                        for c in iface.classes))
    _, found = _mutated("geant-lbe.yaml", change)
    assert found == ["de1.de:so-1/2/0: ip-premium: share 90% expected, 80% found"]


def test_one_moved_code_point_is_named() -> None:
    def change(iface):  # type: ignore[no-untyped-def]
        v4 = list(iface.classify[0])
        v4[8] = "best-effort"
        return dataclasses.replace(iface, classify=(tuple(v4), iface.classify[1]))
    _, found = _mutated("geant-lbe.yaml", change)
    assert found == ["de1.de:so-1/2/0: DSCP 8 (cs1): classified to lbe expected, best-effort found"]


def test_one_changed_drop_point_is_named() -> None:
    def change(iface):  # type: ignore[no-untyped-def]
        be = iface.classes[0]
        (level, curve), = be.drop
        points = ((curve.points[0][0] + 10, curve.points[0][1]), *curve.points[1:])
        moved = dataclasses.replace(be, drop=((level, dataclasses.replace(curve, points=points)),))
        return dataclasses.replace(iface, classes=(moved, *iface.classes[1:]))
    _, found = _mutated("geant-lbe.yaml", change)
    assert len(found) == 1 and found[0].startswith("de1.de:so-1/2/0: best-effort: drop probability at ")


def test_one_changed_policer_rate_is_named() -> None:
    policy = _policy("assured-rate.yaml")
    device = policy.device_map["edge-mx"]
    want = intent.device(policy, device)
    edge = next(i for i in want.interfaces if i.rules)
    rule = next(r for r in edge.rules if r.policer is not None)
    slower = dataclasses.replace(rule, policer=dataclasses.replace(rule.policer, cir=rule.policer.cir // 2))
    got_edge = dataclasses.replace(edge, rules=tuple(slower if r is rule else r for r in edge.rules))
    got = dataclasses.replace(want, interfaces=tuple(got_edge if i is edge else i for i in want.interfaces))
    found = [f.message for f in compare(want, got)]
    service = edge.classify[0][rule.mark or 0]  # the rule names the service its mark puts packets in
    assert found == [f"edge-mx:{edge.name}: rule {rule.name} ({service}) policer: cir {rule.policer.cir} expected, "
                     f"{rule.policer.cir // 2} found"]


def test_priority_order_counts_not_the_level() -> None:
    policy = _policy("geant-lbe.yaml")
    want = intent.device(policy, policy.devices[0])
    iface = want.interfaces[0]
    shifted = dataclasses.replace(iface, classes=tuple(dataclasses.replace(c, priority=(c.priority or 0) * 2 + 1)
                                                        for c in iface.classes))
    assert compare(want, dataclasses.replace(want, interfaces=(shifted,))) == []


def test_curves() -> None:
    step = Curve(((15, 30), (19, 50), (24, 75), (30, 100)), interpolate=False)
    assert [step.at(f) for f in (10, 15, 18, 24, 29, 30, 50)] == [0, 30, 30, 75, 75, 100, 100]
    red = Curve(((40, 0), (80, 20)), interpolate=True, beyond=100)
    assert (red.at(39), red.at(60), red.at(80), red.at(81)) == (0, 10, 20, 100)
    assert Envelope(10_000_000, 64_000).conform == "transmit"


def test_qos173_names_the_disagreement_in_policy_terms() -> None:
    """Two devices whose class of one service differs: QOS173 printed Python reprs (`Curve(points=...)`)."""
    policy = _policy("assured-rate.yaml")
    first = intent.device(policy, policy.device_map["edge-mx"])
    iface = first.interfaces[0]
    red = Curve(((30.0, 0.0), (70.0, 15.0)), interpolate=True, beyond=100.0)
    steps = Curve(((15.0, 30.0), (30.0, 100.0)), interpolate=False)

    def changed(cls):  # type: ignore[no-untyped-def]
        if cls.name == "best-effort":
            return dataclasses.replace(cls, drop=((0, steps),), share=35.0)
        if cls.name == "assured":
            return dataclasses.replace(cls, drop=((1, red), (2, steps)), priority=0)
        if cls.name == "ip-premium":
            return dataclasses.replace(cls, strict=False, cap=20.0)
        return cls

    other = dataclasses.replace(first, name="other", interfaces=(dataclasses.replace(
        iface, classes=tuple(changed(c) for c in iface.classes)),))
    messages = sorted(d.message for d in lift([first, other], "x").diagnostics if d.code == "QOS173")
    assert messages == [
        "service 'assured': drop-profile of class assured is {low: {min: 30, max: 70, max-probability: 15%}, medium: "
        "{points: [[15, 30], [30, 100]]}} here but {low: {min: 60, max: 95, max-probability: 5%}, medium: {min: 40, "
        "max: 80, max-probability: 10%}, high: {min: 20, max: 60, max-probability: 20%}} where the service was first "
        "met; the policy keeps the first",
        "service 'assured': queue.priority of class assured is low here but high where the service was first met; "
        "the policy keeps the first",
        "service 'best-effort': drop-profile of class best-effort is {points: [[15, 30], [30, 100]]} here but "
        "{points: [[50, 10], [90, 100]], interpolate: true} where the service was first met; the policy keeps the "
        "first",
        "service 'best-effort': queue.share of class best-effort is 35% here but 40% where the service was first "
        "met; the policy keeps the first",
        "service 'ip-premium': queue.rate-cap of class ip-premium is 20% here but 10% where the service was first "
        "met; the policy keeps the first",
        "service 'ip-premium': queue.strict of class ip-premium is false here but true where the service was first "
        "met; the policy keeps the first"]

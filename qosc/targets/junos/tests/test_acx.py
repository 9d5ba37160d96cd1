"""junos-acx (Juniper ACX7000, Junos OS Evolved): two strict-priority queues per port, `priority low-latency` above
`priority strict-high` ("Transmission Priority Scheduling", Junos OS CoS User Guide), in the policy's order on each
interface, as IOS XR writes `priority level 1` and `level 2`; junos-mx keeps one (QOS093)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import readback
from qosc.behaviour.compare import compare
from qosc.targets.junos.grammar import JunosGrammar
from qosc.targets.junos.platform import JunosPlatform
from qosc.targets.junos.tests.statements import parse_set
from qosc.targets.registry import platform
from qosc.tree import Document, kw, stmt

COS = "class-of-service"
POLICY = """\
qosc: 1
name: llq
services:
  best-effort:
    kind: best-effort
    default: true
    queue: {share: 50%, priority: low}
  llq:
    kind: premium
    dscp: [af41]
    queue: {strict: true, rate-cap: 40%}
  signaling:
    kind: network-control
    dscp: [cs6]
    queue: {strict: true, rate-cap: 5%}
devices:
  an1:
    platform: PLATFORM
    interfaces:
      et-0/0/4: {role: core, speed: 10G}
      et-0/0/5: {role: core, speed: 10G, services: [best-effort, signaling]}
"""
THIRD = """\
  oam:
    kind: network-control
    dscp: [cs7]
    queue: {strict: true, rate-cap: 1%}
devices:
"""


def compiled(tmp_path: Path, text: str) -> tuple[api.Result, dict[str, str]]:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    return result, {o.path: o.text for o in api.compile_policy(result, ["junos"])} if result.ok else {}


def priorities(st: set[tuple[str, ...]]) -> dict[str, str]:
    return {s[2]: s[4] for s in st if s[:2] == (COS, "schedulers") and s[3] == "priority"}


def maps(st: set[tuple[str, ...]]) -> dict[str, dict[str, str]]:
    """Interface -> forwarding class -> scheduler, through the interface's scheduler map."""
    of: dict[str, dict[str, str]] = {}
    for s in st:
        if s[:2] == (COS, "scheduler-maps") and s[3] == "forwarding-class":
            of.setdefault(s[2], {})[s[4]] = s[6]
    return {s[2]: of[s[4]] for s in st if s[:2] == (COS, "interfaces") and len(s) == 5 and s[3] == "scheduler-map"}


def test_two_strict_services_are_low_latency_then_strict_high_in_policy_order(tmp_path: Path) -> None:
    result, out = compiled(tmp_path, POLICY.replace("PLATFORM", "junos-acx"))
    assert result.ok, [str(d) for d in result.diagnostics]
    st = parse_set(out["junos/an1.set"])
    by_iface = maps(st)
    prio = priorities(st)
    assert prio[by_iface["et-0/0/4"]["llq"]] == "low-latency"
    assert prio[by_iface["et-0/0/4"]["signaling"]] == "strict-high"
    # alone on its interface, signaling is that interface's first strict service
    assert prio[by_iface["et-0/0/5"]["signaling"]] == "low-latency"
    # Junos OS Evolved ACX routers take no transmit-rate on a strict-priority queue: its cap is its shaping-rate
    for sched in (by_iface["et-0/0/4"]["llq"], by_iface["et-0/0/4"]["signaling"]):
        assert not [s for s in st if s[:4] == (COS, "schedulers", sched, "transmit-rate")], sched
    assert (COS, "schedulers", by_iface["et-0/0/4"]["llq"], "shaping-rate", "percent", "40") in st
    swapped = POLICY.replace("PLATFORM", "junos-acx").replace("  llq:\n", "  llq-x:\n")
    swapped = swapped.replace("  signaling:\n", "  llq:\n", 1).replace("  llq-x:\n", "  signaling:\n")
    swapped = swapped.replace("dscp: [af41]\n    queue: {strict: true, rate-cap: 40%}", "TMP").replace(
        "dscp: [cs6]\n    queue: {strict: true, rate-cap: 5%}", "dscp: [af41]\n    queue: {strict: true, rate-cap: 40%}"
    ).replace("TMP", "dscp: [cs6]\n    queue: {strict: true, rate-cap: 5%}")
    result, out = compiled(tmp_path, swapped)
    assert result.ok, [str(d) for d in result.diagnostics]
    st = parse_set(out["junos/an1.set"])
    by_iface, prio = maps(st), priorities(st)
    assert prio[by_iface["et-0/0/4"]["signaling"]] == "low-latency"  # first in the policy now
    assert prio[by_iface["et-0/0/4"]["llq"]] == "strict-high"


def test_two_strict_services_are_refused_on_junos_mx(tmp_path: Path) -> None:
    result, _ = compiled(tmp_path, POLICY.replace("PLATFORM", "junos-mx"))
    found = [d for d in result.diagnostics if d.code == "QOS093"]
    assert found and "junos-mx allows 1 per interface" in found[0].message, [str(d) for d in result.diagnostics]


def test_a_third_strict_service_is_refused_on_junos_acx(tmp_path: Path) -> None:
    text = POLICY.replace("PLATFORM", "junos-acx").replace("devices:\n", THIRD, 1)
    result, _ = compiled(tmp_path, text)
    found = [d for d in result.diagnostics if d.code == "QOS093"]
    assert found and "3 strict-priority services but junos-acx allows 2 per interface" in found[0].message, [
        str(d) for d in result.diagnostics]
    assert found[0].location is not None and found[0].location.line == text.splitlines().index("  oam:") + 4


def test_a_share_on_a_strict_service_is_refused_on_junos_acx(tmp_path: Path) -> None:
    """Junos OS Evolved ACX routers refuse transmit-rate on a strict-priority queue ("Schedulers Overview for ACX
    Series Routers"): a share there is refused at its line, not dropped."""
    text = POLICY.replace("PLATFORM", "junos-acx").replace("{strict: true, rate-cap: 5%}",
                                                           "{share: 5%, strict: true, rate-cap: 5%}")
    result, _ = compiled(tmp_path, text)
    found = [d for d in result.diagnostics if d.code == "QOS113"]
    assert found and found[0].location is not None
    assert found[0].location.line == text.splitlines().index("  signaling:") + 4, [
        str(d) for d in result.diagnostics]


def test_low_latency_is_in_the_grammar_of_junos_acx_only() -> None:
    doc = Document("r1", "junos", (stmt(kw("class-of-service"), children=(stmt(kw("schedulers"), children=(
        stmt(kw("S"), children=(stmt(kw("priority"), kw("low-latency")),)),)),)),))
    mx, acx = platform("junos-mx"), platform("junos-acx")
    assert isinstance(mx, JunosPlatform) and isinstance(acx, JunosPlatform)
    assert JunosGrammar.for_platform(mx).check(doc)
    assert not JunosGrammar.for_platform(acx).check(doc)


def test_the_reader_keeps_the_order_of_two_strict_queues(tmp_path: Path) -> None:
    """low-latency is served above strict-high: read back, the two strict classes keep that order, and equiv sees
    the difference when the two swap."""
    result, out = compiled(tmp_path, POLICY.replace("PLATFORM", "junos-acx"))
    assert result.ok
    text = out["junos/an1.set"]
    st = parse_set(text)
    by_iface = maps(st)
    llq, sig = by_iface["et-0/0/4"]["llq"], by_iface["et-0/0/4"]["signaling"]
    a = readback.read(text, "an1.set", "junos-acx", "an1")
    assert a.behaviour is not None, a.diagnostics
    iface = next(i for i in a.behaviour.interfaces if i.name == "et-0/0/4")
    classes = {c.name: c for c in iface.classes}
    assert classes["llq"].strict and classes["signaling"].strict
    assert classes["llq"].strict_rank is not None and classes["signaling"].strict_rank is not None
    assert classes["llq"].strict_rank > classes["signaling"].strict_rank
    swapped = text.replace(f"schedulers {llq} priority low-latency", f"schedulers {llq} priority STRICT").replace(
        f"schedulers {sig} priority strict-high", f"schedulers {sig} priority low-latency").replace(
        f"schedulers {llq} priority STRICT", f"schedulers {llq} priority strict-high")
    assert swapped != text
    b = readback.read(swapped, "swapped.set", "junos-acx", "an1")
    assert b.behaviour is not None
    found = compare(a.behaviour, b.behaviour)
    assert [d for d in found if "strict priority relative to" in d.message], [d.message for d in found]
    again = readback.read(text, "again.set", "junos-acx", "an1").behaviour
    assert again is not None and not compare(a.behaviour, again)


@pytest.mark.parametrize("name", ["junos-mx", "junos-m-series", "junos-acx"])
def test_every_junos_platform_names_its_strict_priorities(name: str) -> None:
    data = platform(name)
    assert isinstance(data, JunosPlatform)
    assert len(data.strict_priorities) == data.strict_per_interface

"""Property: a generated policy compiled for JUNOS (MX, M-series), IOS (XE, GSR) or Linux tc reads back as its own
intent.

Policies are drawn with best effort plus up to four services (DSCP sets of their own precedences, whole-percent
shares, priorities of the platform, a strict Premium class with a rate cap where the platform has strict
priority, LBE below best effort, RED or segmented drop profiles, buffers) on one or two interfaces.  Each is
compiled, its configuration read back and compared with the policy's intent (qosc.behaviour.intent): nothing may
differ but what the target warned about at compile time (a finding about a service a compile warning points
at).  Bounded and deterministic: derandomized, 40 examples per platform.

Linux shows a kernel's dump, not the batch qosc writes: each batch is loaded on a veth in a scratch network
namespace and dumped with `tc -j` (the device's reading of it, as `qosc verify` makes it), 20 examples; RED
drop profiles only where this kernel loads red (the project's lab kernels do not, domain.md 4.4).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosc import dscp as dscp_mod
from qosc import pipeline
from qosc.behaviour import intent, readback
from qosc.behaviour.compare import Finding, compare
from qosc.behaviour.reconcile import yaml_spans
from qosc.model import Policy
from qosc.targets.platform import Platform
from qosc.targets.registry import for_platform, platform

PORTS = {"junos-mx": ("ge-0/0/0", "xe-0/1/0"), "junos-m-series": ("so-1/2/0", "so-2/0/0"),
         "junos-acx": ("et-0/0/0", "et-0/0/1"),
         "ios-xe": ("GigabitEthernet0/0/0", "TenGigabitEthernet0/1/0"), "ios-gsr": ("POS0/0", "POS1/0"),
         "linux": ("eth0", "eth1")}
SPEEDS = {"ge": ("1G",), "xe": ("10G",), "so": ("622M", "2.5G", "10G"), "Gi": ("1G",), "Te": ("10G",),
          "PO": ("155M", "622M", "2.5G"), "et": ("100M", "1G", "10G")}
"""The speeds a port of that type runs at (IOS derives a port's rate from its type, as the device does)."""


@st.composite
def policies(draw: st.DrawFn, name: str, curves: tuple[str, ...] = ("red",)) -> dict[str, Any]:
    """`curves`: the kinds of drop profile drawn besides none (JUNOS adds segmented points)."""
    data = platform(name)
    assert isinstance(data, Platform)
    levels = list(data.priorities)
    junos = name.startswith("junos")
    services: dict[str, Any] = {}
    profiles: dict[str, Any] = {}

    def profile(service: str) -> None:
        kind = draw(st.sampled_from(["none", *curves, *(["points"] if junos else [])]))
        if kind == "red":
            low = draw(st.integers(10, 60))
            high = draw(st.integers(low + 10, 95))
            profiles[service] = {"min": low, "max": high, "max-probability": f"{draw(st.integers(1, 20))}%"}
        elif kind == "points":
            fills = sorted(draw(st.lists(st.integers(10, 90), min_size=1, max_size=4, unique=True)))
            drops = sorted(draw(st.lists(st.integers(5, 100), min_size=len(fills), max_size=len(fills))))
            profiles[service] = {"points": [[f, d] for f, d in zip(fills, drops, strict=True)]}
        if kind != "none":
            services[service]["drop-profile"] = service

    budget = 100
    strict = data.strict_per_interface > 0 and draw(st.booleans())
    if strict:
        cap = draw(st.integers(5, 20))
        budget -= cap
        services["premium"] = {"kind": "premium", "dscp": ["ef"],
                               "queue": {"share": f"{cap}%", "strict": True, "rate-cap": f"{cap}%"}}
        if not getattr(data, "strict_transmit_rate", True):  # (junos-acx: a strict queue takes no share)
            del services["premium"]["queue"]["share"]
        if data.strict_per_interface > 1 and draw(st.booleans()):  # a second strict service, served after it
            second = draw(st.integers(1, 5))
            budget -= second
            services["signaling"] = {"kind": "network-control", "dscp": ["cs5"],
                                     "queue": {"strict": True, "rate-cap": f"{second}%"}}
    lbe = draw(st.booleans())
    be_share = draw(st.integers(10, 50))
    budget -= be_share
    services["best-effort"] = {"kind": "best-effort", "default": True,
                               "queue": {"share": f"{be_share}%", "priority": levels[-1] if lbe else
                                         draw(st.sampled_from(levels))}}
    if draw(st.booleans()):
        services["best-effort"]["queue"]["buffer"] = f"{be_share}%"
    profile("best-effort")
    if lbe:
        share = draw(st.integers(0 if data.zero_share else 1, 2))
        budget -= share
        services["lbe"] = {"kind": "lbe", "dscp": ["cs1"], "queue": {"share": f"{share}%", "priority": levels[0]}}
    free = [p for p in (2, 3, 4, 6, 7) if not (p == 5 and strict)]
    room = data.queues - len(services)
    count = draw(st.integers(0, max(0, min(room, 3))))
    precs = draw(st.lists(st.sampled_from(free), min_size=count, max_size=count, unique=True))
    for i, prec in enumerate(precs):
        codes = sorted(draw(st.lists(st.integers(8 * prec, 8 * prec + 7), min_size=1, max_size=3, unique=True)))
        share = draw(st.integers(1, max(1, budget // (len(precs) - i) // 2)))
        budget -= share
        body: dict[str, Any] = {"kind": "network-control" if prec >= 6 else "assured",
                                "dscp": [dscp_mod.name(c) for c in codes],
                                "queue": {"share": f"{share}%", "priority": draw(st.sampled_from(levels))}}
        services[f"class-{prec}"] = body
        if draw(st.booleans()):
            body["queue"]["buffer"] = f"{share}%"
        profile(f"class-{prec}")
    ports = PORTS[name][:draw(st.integers(1, 2))]
    interfaces = {port: {"role": "core", "speed": draw(st.sampled_from(SPEEDS[port[:2]]))} for port in ports}
    policy: dict[str, Any] = {"qosc": 1, "name": "generated", "services": services,
                              "devices": {"r1": {"platform": name, "interfaces": interfaces}}}
    if profiles:
        policy["drop-profiles"] = profiles
    return policy


ONLY = {"QOS180": {"classified to"}}
"""Warnings that explain only some kinds of findings (QOS180: precedence matching classifies differently)."""


def _warned(policy: Policy, text: str, path: str, warnings: list[Any]) -> dict[str, set[str] | None]:
    """The services a compile warning points at (at the service, or at a drop profile it uses), with the kinds
    of finding it explains (None: any)."""
    spans = yaml_spans(text)
    out: dict[str, set[str] | None] = {}
    for w in warnings:
        if w.location is None or w.location.file != path:
            continue
        where = next((p for p, lo, hi in spans if lo <= w.location.line <= hi and len(p) >= 2
                      and p[0] in ("services", "drop-profiles")), None)
        if where is None:
            continue
        names = {where[1]} if where[0] == "services" else {s.name for s in policy.services
                                                           if where[1] in dict(s.drop_profiles).values()}
        for name in names:
            kinds = ONLY.get(w.code)
            before = out.get(name, set())
            out[name] = None if kinds is None or before is None else before | kinds
    return out


def _about(f: Finding, policy: Policy) -> set[str]:
    """The services a finding is about: its subject (or the service carrying the code point it names), and for
    a classification the classes it expected and found."""
    names = {f.subject, f.expected, f.found} if f.what == "classified to" else {f.subject}
    if f.subject.startswith("DSCP "):
        code = int(f.subject.split()[1])
        names.add(next((s.name for s in policy.services if code in s.dscp),
                       policy.default_service.name if policy.default_service else f.subject))
    return names


def _explained(f: Finding, policy: Policy, warned: dict[str, set[str] | None]) -> bool:
    for name in _about(f, policy) & set(warned):
        kinds = warned[name]
        if kinds is None or f.what in kinds:
            return True
    return False


def check(name: str, raw: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "generated.yaml")
        text = yaml.safe_dump(raw, sort_keys=False)
        Path(path).write_text(text, encoding="utf-8")
        result = pipeline.validate(path)
        errors = [str(d) for d in result.diagnostics if d.is_error]
        assert result.policy is not None and not errors, (errors, text)
        policy = result.policy
        dev = policy.device_map["r1"]
        for target in for_platform(name):
            diagnostics, lowered = pipeline.lower(target, policy, dev)
            assert lowered is not None, ([str(d) for d in diagnostics], text)
            warned = _warned(policy, text, path, [d for d in diagnostics if not d.is_error])
            if name == "linux":  # one kernel dump a batch, an interface each: the device as the kernel shows it
                shown = readback.own_compile(policy, dev)
                assert shown is not None
                findings = compare(intent.device(policy, dev), shown)
                unwarned = [f.message for f in findings if not _explained(f, policy, warned)]
                assert unwarned == [], (unwarned, text, [o.text for o in target.render(lowered)])
                continue
            for output in target.render(lowered):
                found = readback.read(output.text, output.path, name, "r1")
                assert found.behaviour is not None, found.diagnostics
                findings = compare(intent.device(policy, dev), found.behaviour)
                unwarned = [f.message for f in findings if not _explained(f, policy, warned)]
                assert unwarned == [], (unwarned, text, output.text)


def _examples(budget: int) -> int:
    """`budget` examples in the derandomized ci profile, times the loaded profile's size (deep: 10x, new random
    examples each run; conftest.py), as tests/helpers.fuzz_examples."""
    return max(1, budget * settings().max_examples // 100)


SETTINGS = settings(max_examples=_examples(40), derandomize=settings().derandomize, deadline=None,
                    database=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["junos-mx", "junos-m-series", "junos-acx", "ios-xe", "ios-gsr"])
def test_generated_policies_read_back_as_their_intent(name: str) -> None:
    @SETTINGS
    @given(policies(name))
    def run(raw: dict[str, Any]) -> None:
        check(name, raw)
    run()


def _kernel_curves() -> tuple[str, ...]:
    """("red",) where this kernel loads a red qdisc, () where it cannot (the lab kernels: domain.md 4.4)."""
    from qosc.targets.linux_tc.read import kernel

    try:
        kernel.dump("qdisc add dev eth0 root handle 1: htb default 10\n"
                    "class add dev eth0 parent 1: classid 1:10 htb rate 10mbit\n"
                    "qdisc add dev eth0 parent 1:10 handle 10: red limit 400000 min 30000 max 90000 avpkt 1000 "
                    "burst 55 probability 0.02 bandwidth 10mbit\n")
    except kernel.Refused:
        return ()
    return ("red",)


@pytest.mark.netns
def test_generated_policies_load_in_a_kernel_and_read_back_as_their_intent() -> None:
    from qosc.targets.linux_tc.read import kernel

    why = kernel.available()
    if why is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"the Linux read-back property must run in CI: {why}")
        pytest.skip(why)
    curves = _kernel_curves()

    @settings(SETTINGS, max_examples=_examples(20))
    @given(policies("linux", curves))
    def run(raw: dict[str, Any]) -> None:
        check("linux", raw)
    run()

"""import(compile(P)) is P, per device: every reference policy, every device whose target reads back, every format.

For each case: compile the device (B1 is what the device shows: the text itself, the NETCONF get-config reply
of it, or for Linux the kernel's own `tc -j` dump after loading the batch in a scratch network namespace),
lift B1 to a policy P' as `qosc import` does, validate P' (no errors), compile P' for the same device, read it
back (B2) and require `equiv(B1, B2)` to find nothing.  What a platform really cannot express is a known
exception below, with its reason, and the import must have reported it at the configuration line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from qosc.behaviour.readback import reader
from qosc.behaviour.roundtrip import ROOT, load, outputs, round_trip
from qosc.diagnostics import has_errors
from qosc.targets.base import Output
from qosc.targets.linux_tc.read import kernel

_NC = '<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><data>{}</data></rpc-reply>'


def _netconf(output: Output) -> tuple[str, str]:
    """What <get-config> returns for the configuration qosc's NETCONF path loads."""
    from lxml import etree

    from qosc.targets.junos.push.xml import to_xml
    tree = etree.tostring(to_xml(output.text, replace_owned=False), pretty_print=True, encoding="unicode")
    return _NC.format(tree), output.path.rsplit(".", 1)[0] + ".xml"


def _kernel(output: Output) -> tuple[str, str]:
    return kernel.dump(output.text), output.path.rsplit(".", 1)[0] + ".json"


MARKING = ("examples/mpls-backbone.yaml", ("pe-mx", "p-mx", "p-m", "ce-linux", "pe-sr", "p-xr", "p-xr8k", "pe-asr",
                                           "sw-cat"))
"""The MPLS backbone (marking domains), for the devices whose configuration says all the policy needs back
(issue 21): not p-gsr, whose 12.0S configuration writes no shaper, so its link speed does not come back
(QOS041 on the imported policy)."""
KEEPERS = ("p-m", "p-xr8k")
"""Devices that write no EXP: p-m is transparent; the Cisco 8000 marks in its egress policy nothing but what
its ingress policy set, so a label it swaps keeps its EXP (QOS246)."""


def _cases() -> list[tuple[str, str, str, str]]:
    """(policy, device, output suffix, format) for every output a reader reads."""
    out = []
    for name in [p.name for p in sorted((ROOT / "policies").glob("*.yaml"))] + [MARKING[0]]:
        policy = load(name)
        for dev in policy.devices:
            if reader(dev.platform) is None or (name == MARKING[0] and dev.name not in MARKING[1]):
                continue
            for o in outputs(policy, dev.name):
                suffix = o.path[len(dev.name):]
                if suffix.endswith((".conf", ".set", ".cfg")):
                    out.append((name, dev.name, suffix, suffix.rsplit(".", 1)[1]))
                if suffix.endswith(".conf"):
                    out.append((name, dev.name, suffix, "xml"))
                if suffix.endswith(".tc"):
                    out.append((name, dev.name, suffix, "tc-json"))
    return out


CASES = _cases()

KNOWN = {
    ("assured-rate.yaml", "gsr-2", "cfg"): (
        "validate", {"QOS041"},
        "IOS 12.0S shows no speed for POS0/0 (no `bandwidth` line; POS runs at OC-3 to OC-192), so the strict "
        "class's `police cir 250000000` cannot be put against the link: the policy language needs the speed"),
}
"""(policy, device, format) -> (stage the round trip stops at, the error codes there, the reason)."""

KERNEL = ("the lab kernel has no red qdisc and no police, pedit, mpls or skbedit action (domain.md 4.4): tc refuses "
          "the batch")
"""Linux outputs whose batch the lab kernel cannot load; on a kernel with those modules they run (the EXP and PCP
round trips this kernel can run: qosc/targets/linux_tc/read/tests/test_marks_reader.py)."""

DUMPS: dict[str, Callable[[Output], tuple[str, str]]] = {"xml": _netconf, "tc-json": _kernel}


@pytest.mark.parametrize(("policy", "device", "suffix", "fmt"), CASES,
                         ids=[f"{p.rsplit('/', 1)[-1].removesuffix('.yaml')}-{d}-{f}{s if f == 'tc-json' else ''}"
                              for p, d, s, f in CASES])
def test_import_of_compiled_configuration_compiles_to_the_same_behaviour(policy: str, device: str, suffix: str,
                                                                          fmt: str, tmp_path: Path) -> None:
    if fmt == "xml":
        pytest.importorskip("lxml")
    if fmt == "tc-json" and kernel.available() is not None:
        why = f"Linux round trips load the batch into a kernel: {kernel.available()}"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    pol = load(policy)
    try:
        rt = round_trip(pol, device, suffix, tmp_path, DUMPS.get(fmt, lambda o: (o.text, o.path)))
    except RuntimeError as exc:  # the kernel refused the batch
        assert fmt == "tc-json" and any(w in str(exc) for w in ("kind is unknown", "Failed to load TC action")), exc
        pytest.skip(f"{KERNEL}: {exc}")
    assert rt.first.behaviour is not None, rt.first.diagnostics
    assert rt.lifted is not None
    reported = rt.first.diagnostics + rt.lifted.diagnostics
    assert all(d.location is not None and d.location.line for d in reported if d.code == "QOS172"), reported
    known = KNOWN.get((policy, device, fmt))
    if known is not None:
        stage, codes, _reason = known
        assert rt.stage == stage
        assert {d.code for d in rt.diagnostics if d.severity.value == "error"} == codes
        assert any(d.code == "QOS172" for d in reported), "the import must report what it cannot express"
        return
    assert not has_errors(rt.diagnostics), [str(d) for d in rt.diagnostics if d.severity.value == "error"]
    assert rt.stage == "equiv"
    assert rt.second is not None and rt.second.behaviour is not None
    assert [f.message for f in rt.findings] == [] and rt.problems == []
    assert len(rt.second.behaviour.interfaces) == len(rt.first.behaviour.interfaces) > 0
    if policy == MARKING[0]:  # each domain comes back, value by value (equiv compares them: this says they exist)
        first, second = (sorted((i.name, i.unit, i.classify_exp, i.classify_pcp, i.marks) for i in b.interfaces)
                         for b in (rt.first.behaviour, rt.second.behaviour))
        assert first == second
        assert any(any(i[2]) or any(i[3]) for i in first)
        assert any(i[4] for i in first) == (device not in KEEPERS)


def test_every_reference_device_that_reads_back_is_a_case() -> None:
    """The matrix covers every format of every device, and the known exceptions are few and still real."""
    formats = {(p, d): {f for pp, dd, _, f in CASES if (pp, dd) == (p, d)} for p, d, _, _ in CASES}
    assert formats[("geant-lbe.yaml", "de1.de")] == {"conf", "set", "xml"}
    assert formats[("datagrid-gsr.yaml", "gsr-1")] == {"cfg"}
    assert formats[("four-service-linux.yaml", "lab-router")] == {"tc-json"}
    assert {d for p, d in formats if p == MARKING[0]} == set(MARKING[1])
    assert set(KNOWN) <= {(p, d, f) for p, d, _, f in CASES}
    assert len(KNOWN) <= 2


@pytest.mark.parametrize(("policy", "device", "suffix", "service", "kind"), [
    ("datagrid-gsr.yaml", "gsr-1", ".cfg", "precedence-1", "assured"),  # af11-af13 with cs1: a whole precedence
    ("geant-lbe.yaml", "de1.de", ".conf", "lbe", "lbe"),  # cs1 with the af1x the imported defaults add, 0% share
])
def test_import_tells_an_assured_precedence_from_a_scavenger(policy: str, device: str, suffix: str, service: str,
                                                            kind: str, tmp_path: Path) -> None:
    """A class holding cs1 is LBE unless it is an assured class taking a whole precedence (AF code points, a
    share, a name that does not say scavenger)."""
    pol = load(policy)
    codes = set(next(s for s in pol.services if s.name == service).dscp)
    trip = round_trip(pol, device, suffix, tmp_path)
    assert trip.lifted is not None
    services = trip.lifted.policy["services"]
    lifted = [body["kind"] for body in services.values() if codes & {_code(x) for x in body.get("dscp", [])}]
    assert kind in lifted and (kind == "lbe" or "lbe" not in lifted), services


def _code(name: object) -> int:
    from qosc.dscp import parse_dscp
    return parse_dscp(str(name))

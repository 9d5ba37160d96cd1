"""The SR OS target on the reference policies: the GÉANT plan on a 7750, the first trial refused, the
assured-rate edge, the forwarding-class mapping, the located refusals, byte-identical recompiles, goldens."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import api, pipeline
from qosc.behaviour.roundtrip import outputs
from qosc.diagnostics import Diagnostic
from qosc.model import Policy
from qosc.targets.registry import platform
from qosc.targets.sros import device_plan

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
GEANT = HERE / "policies" / "geant-lbe-sros.yaml"
ASSURED = HERE / "policies" / "assured-rate-sros.yaml"


def _load(path: Path) -> Policy:
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    return result.policy


def _files(path: Path, device: str) -> dict[str, str]:
    return {o.path.rsplit(".", 1)[1]: o.text for o in outputs(_load(path), device)}


def test_geant_final_plan_on_a_7750() -> None:
    cfg = _files(GEANT, "de1.de")["cfg"]
    flat = _files(GEANT, "de1.de")["flat"].splitlines()
    nq = '/configure qos network-queue "geant-lbe" '
    # BE 5% and EF 90% expedited, LBE 0% best-effort (strictly below: served above CIR after every expedited
    # queue), NC 5% expedited
    assert f"{nq}queue 1 queue-type expedited" in flat and f"{nq}queue 1 rate cir 5" in flat
    assert f"{nq}queue 6 queue-type expedited" in flat and f"{nq}queue 6 rate cir 90" in flat
    assert f"{nq}queue 2 queue-type best-effort" in flat and f"{nq}queue 2 rate cir 0" in flat
    assert f"{nq}queue 8 queue-type expedited" in flat and f"{nq}queue 8 rate cir 5" in flat
    # DSCP 8 classified into the scavenger class and marked cs1 at egress; no remark-trusted: kept from the core
    net = '/configure qos network "geant-lbe" '
    assert f'{net}ingress dscp cs1 fc "l2"' in flat and f"{net}egress fc \"l2\" dscp-in-profile cs1" in flat
    assert not any("remark-trusted" in line for line in flat if not line.startswith("#"))
    # the drop curves: BE on its profile's slope, EF's step, tail drop for the others
    slope = '/configure qos slope-policy "geant-lbe" '
    assert f"{slope}low-slope start-avg 9" in flat and f"{slope}low-slope max-avg 28" in flat
    assert f"{slope}high-slope start-avg 10" in flat and f"{slope}high-slope max-avg 10" in flat
    assert f'{net}ingress dscp be profile out' in flat and f'{net}ingress dscp ef profile in' in flat
    # the mapping is stated in the output
    assert "#   ef queue 6: ip-premium (profile in)" in cfg and "#   l2 queue 2: lbe (profile inplus)" in cfg
    # bound where the interface name says
    assert '/configure port 1/1/c1/1 ethernet network egress queue-policy "geant-lbe"' in flat
    assert '/configure router "Base" interface "to-par" qos network-policy "geant-lbe"' in flat


def test_the_first_trial_is_refused_for_nokia_as_for_junos(tmp_path: Path) -> None:
    data = yaml.safe_load((ROOT / "examples" / "geant-lbe-first-trial.yaml").read_text())
    data["devices"] = {"de1.de": {"platform": "sros-7750",
                                  "interfaces": {"to-par:1/1/c1/1": {"role": "core", "speed": "100G"}}}}
    path = tmp_path / "first.yaml"
    path.write_text(yaml.safe_dump(data))
    codes = {d.code for d in api.validate(path).diagnostics if d.is_error}
    assert "QOS050" in codes


def test_the_assured_rate_edge_is_sap_ingress_with_ip_criteria_and_policers() -> None:
    flat = _files(ASSURED, "edge-mx")["flat"].splitlines()
    sap = '/configure qos sap-ingress "assured-rate-site-in-none" '
    assert f'{sap}ip-criteria entry 10 match protocol udp' in flat
    assert f"{sap}ip-criteria entry 10 match src-ip address 198.18.20.0/24" in flat
    assert f'{sap}ip-criteria entry 10 action fc "ef"' in flat and f"{sap}ip-criteria entry 10 action policer 1" in flat
    assert f"{sap}ipv6-criteria entry 40 match src-ip address fd00:20::/64" in flat
    assert f"{sap}policer 2 rate cir 50000" in flat and f"{sap}policer 2 rate pir 100000" in flat
    assert f'{sap}fc "af" in-remark dscp af21' in flat and f'{sap}fc "af" out-remark dscp af22' in flat
    assert ('/configure service vprn "cust-a" interface "to-site-a" sap 1/1/1:100 ingress qos sap-ingress '
            'policy-name "assured-rate-site-in-none"') in flat


def _policy(**services: Any) -> dict[str, Any]:
    base = yaml.safe_load(GEANT.read_text())
    base["services"].update(services)
    return base


def _diagnostics(tmp_path: Path, data: dict[str, Any]) -> list[Diagnostic]:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = pipeline.validate(path)
    assert result.policy is not None, result.diagnostics
    found = list(result.diagnostics)
    for target, unit in pipeline.select(result.policy):
        diags, _ = pipeline.lower(target, result.policy, unit)
        found += diags
    return found


def _services(n: int) -> dict[str, Any]:
    return {f"extra{i}": {"kind": "other", "dscp": [f"cs{2 + i % 4}"] if i < 4 else [10 + 2 * i],
                          "queue": {"share": "1%", "priority": "low"}} for i in range(n)}


REFUSED = {
    "QOS230": (lambda: _policy(**_services(5)), "forwarding classes"),
    "QOS231": (lambda: {**_policy(), "devices": {"d": {"platform": "sros-7750", "interfaces": {
        "ge-0/0/0": {"role": "core", "speed": "10G"}}}}}, "does not say where SR OS applies it"),
    "QOS233": (lambda: _policy(**{"best-effort": {**yaml.safe_load(GEANT.read_text())["services"]["best-effort"],
                                                  "queue": {"share": "5%", "priority": "high", "aqm": "codel"}}}),
               "CoDel"),
    "QOS234": (lambda: _policy(lbe={"kind": "lbe", "dscp": ["cs1"],
                                          "queue": {"share": "0.5%", "priority": "low"}}), "whole percent"),
}


@pytest.mark.parametrize("code", sorted(REFUSED))
def test_a_policy_the_box_cannot_take_gets_a_located_diagnostic(code: str, tmp_path: Path) -> None:
    make, words = REFUSED[code]
    found = [d for d in _diagnostics(tmp_path, make()) if d.code == code]
    assert found and words in found[0].message and found[0].location is not None and found[0].location.line > 0


def test_more_drop_behaviours_than_slopes_is_qos232(tmp_path: Path) -> None:
    data = _policy(**{f"x{i}": {"kind": "other", "dscp": [f"cs{2 + i}"], "drop-profile": f"p{i}",
                                "queue": {"share": "1%", "priority": "low"}} for i in range(3)})
    data["drop-profiles"].update({f"p{i}": {"min": 10 + i, "max": 50, "max-probability": 10} for i in range(3)})
    found = [d for d in _diagnostics(tmp_path, data) if d.code == "QOS232"]
    assert found and "slopes" in found[0].message and found[0].location is not None


def test_forwarding_classes_are_mapped_by_kind_and_deterministically() -> None:
    policy = _load(HERE / "policies" / "every-feature-sros.yaml")
    plat = platform("sros-7750")
    plan = device_plan(policy, policy.device_map["sr1"], plat)  # type: ignore[arg-type]
    assert {s: fc.name for s, fc in plan.fc_of.items()} == {
        "best-effort": "be", "scavenger": "be", "network-control": "nc", "premium": "ef", "assured": "af",
        "gold": "l1", "lbe": "l2"}
    again = device_plan(policy, policy.device_map["sr1"], plat)  # type: ignore[arg-type]
    assert [f.name for f in again.fcs] == [f.name for f in plan.fcs]


@pytest.mark.parametrize("path", sorted((HERE / "policies").glob("*.yaml")), ids=lambda p: p.stem)
def test_recompiling_is_byte_identical(path: Path) -> None:
    policy = _load(path)
    for device in (d.name for d in policy.devices):
        first = {o.path: o.text for o in outputs(policy, device)}
        second = {o.path: o.text for o in outputs(_load(path), device)}
        assert first == second


@pytest.mark.parametrize(("path", "device"), [(GEANT, "de1.de"), (ASSURED, "edge-mx")], ids=["geant", "assured"])
def test_golden(path: Path, device: str, golden: Any) -> None:
    for fmt, text in sorted(_files(path, device).items()):
        golden(f"{path.stem}/{device}.{fmt}", text)


def test_the_ixr_differs_as_its_platform_data_says(tmp_path: Path) -> None:
    data = copy.deepcopy(yaml.safe_load(ASSURED.read_text()))
    data["devices"]["edge-mx"]["platform"] = "sros-7250-ixr"
    found = [d for d in _diagnostics(tmp_path, data) if d.code == "QOS236" and "per-queue WRED" in d.message]
    assert found  # the IXR's SAP egress queues take no wred-queue: said, and none written

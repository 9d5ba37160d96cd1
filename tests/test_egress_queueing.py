"""`egress-queueing: device-default`: an interface classified and rewritten by the policy whose egress queues are the
device's own (issue 22: the JVD ag3 router's units without a scheduler map).  What each target writes for it, or
refuses at the key's line, and the checks that stop describing such a hop as scheduled by the policy."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import pipeline
from qosc.cli import main
from tests.test_fields import compile_units

SERVICES: dict[str, Any] = {
    "best-effort": {"kind": "best-effort", "default": True, "queue": {"share": "60%", "priority": "high"},
                    "exp": [0]},
    "premium": {"kind": "premium", "queue": {"strict": True, "rate-cap": "20%"}, "exp": [5]},
    "assured": {"kind": "assured", "dscp": ["af21", "af22"], "queue": {"share": "15%", "priority": "high"},
                "exp": [2]},
    "nc": {"kind": "network-control", "queue": {"share": "5%", "priority": "high"}, "exp": [6]},
}
CLASSIFIER = {"rules": [{"name": "video", "service": "premium",
                         "match": {"source": ["198.18.1.0/24"], "protocol": ["udp"]}}]}
DEFAULT = {"egress-queueing": "device-default"}


def policy(devices: dict[str, Any]) -> dict[str, Any]:
    return {"qosc": 1, "name": "dq", "services": copy.deepcopy(SERVICES), "classifiers": {"cust": CLASSIFIER},
            "devices": devices}


def compiled(tmp_path: Path, devices: dict[str, Any]) -> tuple[list[Any], dict[tuple[str, str], dict[str, str]], Path]:
    path = tmp_path / "dq.yaml"
    path.write_text(yaml.safe_dump(policy(devices), sort_keys=False), encoding="utf-8")
    diags, files = compile_units(path)
    return diags, files, path


def line_of(path: Path, text: str, after: str) -> int:
    """The 1-based line of the first `text` after the line holding `after`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(i for i, line in enumerate(lines) if i > start and text in line) + 1


def ios_interface(text: str, name: str) -> list[str]:
    """The commands under `interface NAME` of an IOS configuration."""
    block = re.search(rf"^interface {re.escape(name)}\n((?: .*\n)*)", text, re.MULTILINE)
    assert block is not None, text
    return [line.strip() for line in block.group(1).splitlines()]


def test_junos_writes_the_units_classifiers_and_rewrite_rules_but_no_scheduler_map(tmp_path: Path) -> None:
    diags, files, _ = compiled(tmp_path, {"mx1": {"platform": "junos-mx", "interfaces": {
        "xe-0/0/0": {"role": "core", "speed": "10G"},
        "xe-0/0/1": {"role": "core", "speed": "10G", "encapsulation": "mpls", **DEFAULT},
        "ge-0/1/0": {"role": "edge", "speed": "1G", "classifier": "cust", **DEFAULT}}}})
    assert not [d for d in diags if d.is_error], [d.message for d in diags]
    text = files[("junos", "mx1")]["junos/mx1.set"]
    own = [line for line in text.splitlines() if line.startswith("set class-of-service interfaces ")]
    assert any(line.startswith("set class-of-service interfaces xe-0/0/0 scheduler-map ") for line in own), own
    for port in ("xe-0/0/1", "ge-0/1/0"):
        assert not [line for line in own if line.startswith(f"set class-of-service interfaces {port} scheduler-map")]
        assert [line for line in own if line.startswith(f"set class-of-service interfaces {port} unit 0 rewrite-rules")]
    assert "set class-of-service interfaces xe-0/0/1 unit 0 classifiers exp " in text
    assert "set class-of-service interfaces xe-0/0/1 unit 0 rewrite-rules exp " in text
    assert "traffic-control-profile" not in text
    # the edge still re-classifies by the policy's classifier (an input filter)
    assert re.search(r"^set interfaces ge-0/1/0 unit 0 family inet filter input ", text, re.MULTILINE), text


def test_junos_writes_no_scheduler_for_a_class_only_device_default_interfaces_carry(tmp_path: Path) -> None:
    """A device whose every interface is left at Junos's default map gets forwarding classes, classifiers and
    rewrite rules, and no scheduler or scheduler map (unused schedulers, and their refusals, were written)."""
    diags, files, _ = compiled(tmp_path, {"mx1": {"platform": "junos-mx", "interfaces": {
        "xe-0/0/1": {"role": "core", "speed": "10G", "encapsulation": "mpls", **DEFAULT}}}})
    assert not [d for d in diags if d.is_error], [d.message for d in diags]
    text = files[("junos", "mx1")]["junos/mx1.set"]
    assert "set class-of-service forwarding-classes " in text and " rewrite-rules exp " in text
    assert "schedulers" not in text and "scheduler-map" not in text, text
    assert "xe-0/0/1 unit 0: core, 10G, trust dscp exp, queued by Junos's default scheduler map" in \
        files[("junos", "mx1")]["junos/mx1.conf"]


def test_ios_writes_no_output_policy_and_keeps_the_input_policy(tmp_path: Path) -> None:
    for platform, core, edge in (("ios-xe", "TenGigabitEthernet0/0/1", "GigabitEthernet0/1/0"),
                                 ("ios-gsr", "POS0/1", "GigabitEthernet1/0")):
        diags, files, _ = compiled(tmp_path, {"r1": {"platform": platform, "interfaces": {
            "TenGigabitEthernet0/0/0" if platform == "ios-xe" else "POS0/0": {"role": "core", "speed": "10G"},
            core: {"role": "core", "speed": "10G", **DEFAULT},
            edge: {"role": "edge", "speed": "1G", "classifier": "cust", **DEFAULT}}}})
        assert not [d for d in diags if d.is_error], [d.message for d in diags]
        text = next(iter(files[("ios-mqc", "r1")].values()))
        scheduled = ios_interface(text, "TenGigabitEthernet0/0/0" if platform == "ios-xe" else "POS0/0")
        assert [c for c in scheduled if c.startswith("service-policy output ")], scheduled
        assert not [c for c in ios_interface(text, core) if c.startswith("service-policy")], text
        commands = ios_interface(text, edge)
        assert [c for c in commands if c.startswith("service-policy input ")], commands
        assert not [c for c in commands if c.startswith("service-policy output ")], commands


def test_ios_refuses_device_default_where_the_output_policy_would_mark_or_shape(tmp_path: Path) -> None:
    """IOS writes an MPLS core's EXP and a shaper in the output policy that queues: leaving it out would drop them,
    so QOS209 at the egress-queueing line."""
    diags, files, path = compiled(tmp_path, {"xe1": {"platform": "ios-xe", "interfaces": {
        "TenGigabitEthernet0/0/0": {"role": "core", "speed": "10G", "encapsulation": "mpls", "trust": "dscp",
                                    **DEFAULT},
        "TenGigabitEthernet0/0/1": {"role": "core", "speed": "10G", "shape": "5G", **DEFAULT}}}})
    refused = [d for d in diags if d.code == "QOS209"]
    assert {d.location.line for d in refused} == {
        line_of(path, "egress-queueing", "TenGigabitEthernet0/0/0"),
        line_of(path, "egress-queueing", "TenGigabitEthernet0/0/1")}, [d.message for d in diags]
    assert any("rewrites the EXP" in d.message for d in refused) and any("shapes" in d.message for d in refused)
    assert ("ios-mqc", "xe1") not in files


def test_targets_without_it_refuse_it_at_its_line(tmp_path: Path) -> None:
    """Catalyst 6500, IOS XR, SR OS and Linux tc do not render it: QOS090 at the key, whatever else compiles."""
    devices = {
        "cat1": {"platform": "catalyst6500", "interfaces": {
            "GigabitEthernet1/1": {"role": "core", "speed": "1G", "port-type": "1p7q8t", **DEFAULT}}},
        "xr1": {"platform": "iosxr-asr9k", "interfaces": {"TenGigE0/0/0/0": {"role": "core", "speed": "10G",
                                                                             **DEFAULT}}},
        "sr1": {"platform": "sros-7750", "interfaces": {"to-core:1/1/1": {"role": "core", "speed": "10G",
                                                                          **DEFAULT}}},
        "lx1": {"platform": "linux", "interfaces": {"eth0": {"role": "core", "speed": "1G", **DEFAULT}}},
    }
    diags, _, path = compiled(tmp_path, devices)
    refused = {(d.message.split("target ")[1].split()[0], d.location.line) for d in diags if d.code == "QOS090"}
    assert refused == {("catalyst6500", line_of(path, "egress-queueing", "GigabitEthernet1/1")),
                       ("iosxr", line_of(path, "egress-queueing", "TenGigE0/0/0/0")),
                       ("sros", line_of(path, "egress-queueing", "to-core:1/1/1")),
                       ("linux-tc", line_of(path, "egress-queueing", "eth0"))}, [d.message for d in diags]


def test_checks_of_the_policys_queues_skip_a_device_default_interface(tmp_path: Path) -> None:
    """Shares that overbook a link (QOS040) or a speed that is not said (QOS041) are the policy's queues: on an
    interface queued by the device they are not the policy's business; the same interface queued by the policy
    is checked."""
    services = copy.deepcopy(SERVICES)
    services["assured"]["queue"]["share"] = "50%"  # 60 + 20 + 50 + 5 = 135%
    services["nc"]["queue"]["share"] = "100M"  # a rate: a link of unknown speed cannot be checked (QOS041)
    for queueing, expected in (({}, {"QOS040", "QOS041"}), (DEFAULT, set())):
        doc = policy({"mx1": {"platform": "junos-mx", "interfaces": {
            "xe-0/0/0": {"role": "core", "speed": "10G", **queueing},
            "xe-0/0/1": {"role": "core", **queueing}}}})
        doc["services"] = services
        path = tmp_path / "checks.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        diagnostics = pipeline.validate(path).diagnostics
        found = {d.code for d in diagnostics} & {"QOS040", "QOS041"}
        assert found == expected, (queueing, found)
        assert queueing != DEFAULT or not [d.message for d in diagnostics if d.is_error]


def test_an_sls_path_through_a_device_default_hop_guarantees_nothing_there(tmp_path: Path) -> None:
    """The SLS does not describe a device-default hop as scheduled by the policy's shares: QOS163 names the hop,
    and the derived hop says the device's defaults queue it."""
    from qosc.sls.bounds import derive

    services = copy.deepcopy(SERVICES)
    services["assured"]["sls"] = {"rate": "1G", "path": ["mx1:xe-0/0/0", "mx1:xe-0/0/1"]}
    doc = policy({"mx1": {"platform": "junos-mx", "interfaces": {
        "xe-0/0/0": {"role": "core", "speed": "10G"},
        "xe-0/0/1": {"role": "core", "speed": "10G", **DEFAULT}}}})
    doc["services"] = services
    path = tmp_path / "sls.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    result = pipeline.validate(path)
    said = [d for d in result.diagnostics if d.code == "QOS163"]
    assert len(said) == 1 and "mx1:xe-0/0/1" in said[0].message and "device's defaults" in said[0].message, \
        [d.message for d in result.diagnostics]
    assert result.policy is not None
    derived = derive(result.policy, result.policy.service_map["assured"])
    assert [h.scheduled for h in derived.path] == [True, False]
    assert [h.interface for h in derived.interfaces] == ["xe-0/0/0"]  # the interfaces that schedule it


def test_verify_reads_a_device_default_interface_back_as_the_policy_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The compiled configuration verifies clean against its policy (JUNOS: no scheduler map read as Junos's
    default queues; IOS: no output policy), and the configuration compiled with the interface queued by the policy
    is drift on that interface, said as such."""
    devices = {
        "mx1": {"platform": "junos-mx", "interfaces": {"xe-0/0/0": {"role": "core", "speed": "10G"},
                                                        "xe-0/0/1": {"role": "core", "speed": "10G", **DEFAULT}}},
        "xe1": {"platform": "ios-xe", "interfaces": {
            "TenGigabitEthernet0/0/0": {"role": "core", "speed": "10G"},
            "GigabitEthernet0/1/0": {"role": "edge", "speed": "1G", "classifier": "cust", **DEFAULT}}}}
    scheduled = copy.deepcopy(devices)
    del scheduled["mx1"]["interfaces"]["xe-0/0/1"]["egress-queueing"]
    del scheduled["xe1"]["interfaces"]["GigabitEthernet0/1/0"]["egress-queueing"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, files, path = compiled(tmp_path / "a", devices)
    _, other, _ = compiled(tmp_path / "b", scheduled)
    for (target, unit), suffix, port in ((("junos", "mx1"), ".conf", "xe-0/0/1"),
                                         (("ios-mqc", "xe1"), ".cfg", "GigabitEthernet0/1/0")):
        mine = next(t for f, t in files[(target, unit)].items() if f.endswith(suffix))
        theirs = next(t for f, t in other[(target, unit)].items() if f.endswith(suffix))
        config = tmp_path / f"{unit}{suffix}"
        config.write_text(mine, encoding="utf-8")
        assert main(["verify", str(path), "--config", f"{unit}={config}"]) == 0, capsys.readouterr()
        capsys.readouterr()
        config.write_text(theirs, encoding="utf-8")
        assert main(["verify", str(path), "--config", f"{unit}={config}"]) == 1
        out = capsys.readouterr()
        assert f"{port}: egress queueing: by the device's default expected, the policy's queues found" in \
            out.out + out.err, out

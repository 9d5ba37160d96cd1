"""Every policy field is rendered or refused by every target it reaches: a walk of the JSON Schema.

One base policy has a device of every platform and a host; for every target
field of the schema (qosc.fields) the table below says how to set or change
it.  The test compiles the base and the changed policy and, per target:

- the target supports the field (Target.supports): the change must show, in
  the target's files or as a diagnostic of that target (a located refusal of
  the value, e.g. QOS110 strict priority on M-series);
- it does not: the core must report QOS090 at the field's line.

A field missing from the table fails the test, so a new field cannot land
without saying what each target does with it.  KNOWN_SILENT lists (target,
field) pairs still silently dropped; it is empty (the last, Cisco descriptions,
interpolate, PFC max-probability and MQC priority, are rendered or said since
stop 20), and an entry that is no longer silent fails the test.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from qosc import fields, pipeline
from qosc.targets.registry import targets

BASE: dict[str, Any] = {
    "qosc": 1,
    "name": "feat",
    "defaults": {"mtu": 1500, "rtt": "10ms"},
    "services": {
        "best-effort": {"kind": "best-effort", "default": True, "queue": {"share": "40%", "priority": "high"}},
        "premium": {"kind": "premium", "queue": {"share": "10%", "priority": "high"}, "policer": "prem"},
        "assured": {"kind": "assured", "dscp": ["af21", "af22", "af23"], "drop-profile": "af",
                    "queue": {"share": "30%", "priority": "high"}},
        "lbe": {"kind": "lbe", "queue": {"share": "1%", "priority": "low"}},
        "nc": {"kind": "network-control", "queue": {"share": "5%", "priority": "high"}},
    },
    "drop-profiles": {"af": {"points": [[50, 10], [90, 100]]}},
    "policers": {"prem": {"cir": "10M", "cbs": "64KB"}},
    "classifiers": {"cust": {"rules": [
        {"name": "video", "service": "premium",
         "match": {"source": ["198.18.1.0/24"], "protocol": ["udp"], "destination-port": [5004]}},
        {"name": "bulk", "service": "assured", "match": {"destination": ["198.18.2.0/24"], "protocol": ["tcp"]}},
    ]}},
    "devices": {
        "m1": {"platform": "junos-m-series", "interfaces": {  # four queues: lbe is not carried
            "so-1/0/0": {"role": "core", "speed": "2.5G", "services": ["best-effort", "premium", "assured", "nc"]},
            "ge-1/1/0": {"role": "edge", "speed": "1G", "classifier": "cust",
                         "services": ["best-effort", "premium", "assured", "nc"]}}},
        "mx1": {"platform": "junos-mx", "interfaces": {
            "xe-0/0/0": {"role": "core", "speed": "10G"},
            "ge-0/1/0": {"role": "edge", "speed": "1G", "classifier": "cust"}}},
        "gsr1": {"platform": "ios-gsr", "interfaces": {
            "POS0/0": {"role": "core", "speed": "2.5G"},
            "GigabitEthernet1/0": {"role": "edge", "speed": "1G", "classifier": "cust"}}},
        "xe1": {"platform": "ios-xe", "interfaces": {
            "TenGigabitEthernet0/0/0": {"role": "core", "speed": "10G"},
            "GigabitEthernet0/1/0": {"role": "edge", "speed": "1G", "classifier": "cust"}}},
        "cat1": {"platform": "catalyst6500", "interfaces": {
            "GigabitEthernet1/1": {"role": "core", "speed": "1G", "port-type": "1p7q8t"},
            "GigabitEthernet1/2": {"role": "edge", "speed": "1G", "port-type": "1p7q8t", "classifier": "cust"}}},
        "sr1": {"platform": "sros-7750", "interfaces": {
            "to-core:1/1/1": {"role": "core", "speed": "10G"},
            "vprn:cust:to-cust:1/1/2:100": {"role": "edge", "speed": "1G", "classifier": "cust"}}},
        "ixr1": {"platform": "sros-7250-ixr", "interfaces": {
            "to-core:1/1/1": {"role": "core", "speed": "10G"},
            "vpls:cust:1/1/2:100": {"role": "edge", "speed": "1G", "classifier": "cust"}}},
        "xr1": {"platform": "iosxr-asr9k", "interfaces": {  # an MPLS core and a VLAN trunk: EXP and PCP show
            "TenGigE0/0/0/0": {"role": "core", "speed": "10G"},
            "TenGigE0/0/0/2": {"role": "core", "speed": "10G", "encapsulation": "mpls", "rewrite": ["dscp"],
                               "services": ["best-effort", "premium", "assured", "nc"]},
            "TenGigE0/0/0/3": {"role": "core", "speed": "10G", "encapsulation": ["ip", "vlan"], "rewrite": ["dscp"],
                               "services": ["best-effort", "premium", "assured", "nc"]},
            "GigabitEthernet0/0/0/1": {"role": "edge", "speed": "1G", "classifier": "cust",
                                       "services": ["best-effort", "premium", "assured", "nc"]}}},
        "xr8k": {"platform": "iosxr-8000", "interfaces": {
            "HundredGigE0/0/0/0": {"role": "core", "speed": "100G"},
            "TenGigE0/0/0/1": {"role": "edge", "speed": "10G", "classifier": "cust"}}},
        "lx1": {"platform": "linux", "interfaces": {
            "eth0": {"role": "core", "speed": "1G"},
            # impose: Linux pushes labels by routing, which tc cannot mark (QOS149): the edge of a device with an
            # MPLS interface must say false
            "eth1": {"role": "edge", "speed": "1G", "classifier": "cust", "impose": False},
            # MPLS and VLAN, classified on (no service has a value yet: they go to best effort); lbe is not carried,
            # as it may not be without a value of its own (QOS085)
            "eth2": {"role": "transparent", "speed": "1G", "encapsulation": ["mpls", "vlan"],
                     "services": ["best-effort", "premium", "assured", "nc"]}}},
    },
    "hosts": {
        "h1": {"platform": "linux", "interfaces": {"eth0": {"speed": "10G"}},
               "paths": [{"peer": "far.example", "rtt": "20ms", "rate": "500M"}]},
    },
}

Change = Callable[[dict[str, Any]], None]


def put(path: str, value: Any) -> Change:
    """Set a value at a dotted path of the policy (list items by index)."""
    def change(p: dict[str, Any]) -> None:
        node: Any = p
        *parents, last = path.split(".")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def drop(path: str) -> Change:
    def change(p: dict[str, Any]) -> None:
        node: Any = p
        *parents, last = path.split(".")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]
    return change


def each_interface(key: str, value: Any, role: str | None = None) -> Change:
    def change(p: dict[str, Any]) -> None:
        for device in p["devices"].values():
            for iface in device["interfaces"].values():
                if role is None or iface.get("role") == role:
                    iface[key] = value
    return change


def each_device(key: str, value: Any) -> Change:
    def change(p: dict[str, Any]) -> None:
        for device in p["devices"].values():
            device[key] = value
    return change


def both(*changes: Change) -> Change:
    def change(p: dict[str, Any]) -> None:
        for c in changes:
            c(p)
    return change


THREE_COLOUR = both(put("policers.ar", {"cir": "20M", "cbs": "1MB", "pir": "40M", "pbs": "2MB", "conform": "af21",
                                        "exceed": "af22", "violate": "drop"}),
                    put("services.assured.policer", "ar"))

# every service with an EXP (PCP) value, so that MPLS (VLAN) interfaces that rewrite it bleach nothing (QOS083)
EXP_ALL = both(*(put(f"services.{n}.exp", v) for n, v in (
    ("best-effort", [0]), ("premium", [5]), ("assured", {"low": [2], "high": [3]}), ("lbe", [1]), ("nc", [6]))))
PCP_ALL = both(*(put(f"services.{n}.pcp", v) for n, v in (
    ("best-effort", [0]), ("premium", [5]), ("assured", {"low": [2], "high": [3]}), ("lbe", [1]), ("nc", [6]))))
MX_MPLS = both(EXP_ALL, put("devices.mx1.interfaces.xe-0/0/0.encapsulation", "mpls"),
               put("devices.sr1.interfaces.to-core:1/1/1.encapsulation", "mpls"),
               put("devices.ixr1.interfaces.to-core:1/1/1.encapsulation", "mpls"))
"""mx1's core carries MPLS: its EXP classifier and rewrite rule (the PE's imposition) show in the JUNOS files; the
SR OS cores too: their network policies' lsp-exp entries and egress values (the PE's imposition)."""
CISCO_MPLS = both(put("devices.xe1.interfaces.TenGigabitEthernet0/0/0.encapsulation", "mpls"),
                  put("devices.gsr1.interfaces.POS0/0.encapsulation", "mpls"),
                  put("devices.cat1.interfaces.GigabitEthernet1/1.encapsulation", "mpls"))
"""The Cisco cores carry MPLS: xe1 and gsr1 are provider edges (EXP class-maps, imposition in the edges' input
policies, the EXP rewrite); cat1's PFC has no MPLS QoS, refused at the interface (QOS188)."""
CISCO_VLAN = both(put("devices.xe1.interfaces.TenGigabitEthernet0/0/0.encapsulation", ["ip", "vlan"]),
                  put("devices.gsr1.interfaces.POS0/0.encapsulation", ["ip", "vlan"]),
                  put("devices.cat1.interfaces.GigabitEthernet1/1.encapsulation", "vlan"))
"""The Cisco cores carry 802.1Q: xe1 matches and sets CoS, cat1's trunk trusts CoS (its CoS maps from the PCP),
gsr1 matches CoS but has no set cos in 12.0S (QOS188)."""
SR_VLAN = both(put("devices.sr1.interfaces.vprn:cust:to-cust:1/1/2:100.encapsulation", ["ip", "vlan"]),
               put("devices.ixr1.interfaces.vpls:cust:1/1/2:100.encapsulation", ["ip", "vlan"]))
"""The SR OS edges are SAPs on VLAN 100: carrying 802.1p, their sap-egress writes each class's PCP."""

def ethernet_rule(key: str, value: list[Any]) -> Change:
    """The edges carry Ethernet frames only (encapsulation vlan, no rewrite) and the classifier's rules match the
    Ethernet header (`key`), into services whose rules mark no DSCP there (QOS211 otherwise)."""
    return both(each_interface("encapsulation", "vlan", role="edge"), each_interface("rewrite", [], role="edge"),
                put("classifiers.cust.rules", [{"name": "video", "service": "premium", "match": {key: value}},
                                               {"name": "bulk", "service": "assured",
                                                "match": {"pcp": [1]} if key != "pcp" else {"source-mac": [
                                                    "00:0c:0d:00:00:01"]}}]))


# field path -> how to change it (on the base policy)
TABLE: dict[str, Change] = {
    "name": put("name", "feat2"),
    "description": put("description", "a policy description"),
    "services.*.description": put("services.premium.description", "video and voice"),
    "services.*.dscp": put("services.assured.dscp", ["af31", "af32", "af33"]),
    "services.*.default": both(put("services.best-effort.default", False), put("services.assured.default", True)),
    "services.*.queue.share": put("services.best-effort.queue.share", "35%"),
    "services.*.queue.buffer": put("services.best-effort.queue.buffer", "20%"),
    "services.*.queue.priority": put("services.nc.queue.priority", "low"),
    "services.*.queue.strict": both(put("services.premium.queue.strict", True),
                                    put("services.premium.queue.rate-cap", "10%")),
    "services.*.queue.rate-cap": put("services.premium.queue.rate-cap", "10%"),
    "services.*.queue.ceiling": put("services.lbe.queue.ceiling", "50%"),
    "services.*.queue.shared-with": put("services.nc.queue", {"shared-with": "best-effort"}),
    "services.*.queue.aqm": put("services.assured.queue.aqm", "none"),
    "services.*.queue.ecn": put("services.assured.queue.ecn", True),
    "services.*.drop-profile": put("services.best-effort.drop-profile", "af"),
    "services.*.policer": put("services.assured.policer", "prem"),
    "drop-profiles.*.description": put("drop-profiles.af.description", "AF drop curve"),
    "drop-profiles.*.points": put("drop-profiles.af.points", [[40, 20], [80, 100]]),
    "drop-profiles.*.min": put("drop-profiles.af", {"min": 40, "max": 80, "max-probability": 20}),
    "drop-profiles.*.max": put("drop-profiles.af", {"min": 50, "max": 70, "max-probability": 10}),
    "drop-profiles.*.max-probability": put("drop-profiles.af", {"min": 50, "max": 90, "max-probability": 30}),
    "drop-profiles.*.interpolate": put("drop-profiles.af.interpolate", True),
    "policers.*.description": put("policers.prem.description", "premium edge policer"),
    "policers.*.cir": put("policers.prem.cir", "20M"),
    "policers.*.cbs": put("policers.prem.cbs", "128KB"),
    "policers.*.pir": THREE_COLOUR,
    "policers.*.pbs": THREE_COLOUR,
    "policers.*.ebs": both(put("policers.ar", {"cir": "20M", "cbs": "1MB", "ebs": "2MB", "conform": "af21",
                                               "exceed": "af22", "violate": "drop"}),
                           put("services.assured.policer", "ar")),
    "policers.*.conform": put("policers.prem.conform", "cs5"),
    "policers.*.exceed": put("policers.prem.exceed", "cs1"),
    "policers.*.violate": THREE_COLOUR,
    "policers.*.color-aware": both(THREE_COLOUR, put("policers.ar.color-aware", True)),
    "classifiers.*.description": put("classifiers.cust.description", "customer classifier"),
    "classifiers.*.rules.*.name": put("classifiers.cust.rules.0.name", "videoconf"),
    "classifiers.*.rules.*.description": put("classifiers.cust.rules.0.description", "the video rule"),
    "classifiers.*.rules.*.match.source": put("classifiers.cust.rules.0.match.source", ["198.18.3.0/24"]),
    "classifiers.*.rules.*.match.destination": put("classifiers.cust.rules.0.match.destination",
                                                   ["198.18.4.0/24"]),
    "classifiers.*.rules.*.match.protocol": put("classifiers.cust.rules.1.match.protocol", ["udp"]),
    "classifiers.*.rules.*.match.source-port": put("classifiers.cust.rules.1.match.source-port", [2811]),
    "classifiers.*.rules.*.match.destination-port": put("classifiers.cust.rules.0.match.destination-port",
                                                        ["5004-5005"]),
    "classifiers.*.rules.*.match.dscp": put("classifiers.cust.rules.1.match.dscp", ["af21"]),
    "classifiers.*.rules.*.service": put("classifiers.cust.rules.1.service", "lbe"),
    "classifiers.*.rules.*.set-dscp": put("classifiers.cust.rules.1.set-dscp", "af22"),
    "classifiers.*.rules.*.policer": put("classifiers.cust.rules.1.policer", "prem"),
    "classifiers.*.rules.*.mark": put("classifiers.cust.rules.1.mark", False),
    "classifiers.*.rules.*.match.pcp": ethernet_rule("pcp", [5]),
    "classifiers.*.rules.*.match.source-mac": ethernet_rule("source-mac", ["00:0c:0d:00:00:01/48"]),
    "classifiers.*.rules.*.match.destination-mac": ethernet_rule("destination-mac", ["00:0c:22:00:00:00/24"]),
    "classifiers.*.unmatched": both(ethernet_rule("pcp", [5]), put("classifiers.cust.unmatched", "drop")),
    "devices.*.description": each_device("description", "a device description"),
    "devices.*.interfaces.*.description": each_interface("description", "an interface description"),
    "devices.*.interfaces.*.role": each_interface("role", "transparent", role="core"),
    "devices.*.interfaces.*.shape": each_interface("shape", "500M", role="edge"),
    "devices.*.interfaces.*.trust": each_interface("trust", "dscp", role="edge"),
    "devices.*.interfaces.*.encapsulation": both(EXP_ALL, each_interface("encapsulation", "mpls", role="core")),
    "devices.*.interfaces.*.rewrite": both(EXP_ALL, CISCO_MPLS, each_interface("rewrite", [], role="core"),
                                           # lx1's eth2 writes EXP and PCP (it carries every service, each with a
                                           # value): a rewrite Linux renders
                                           PCP_ALL, drop("devices.lx1.interfaces.eth2.services"),
                                           put("devices.lx1.interfaces.eth2.rewrite", ["exp", "pcp"])),
    # lx1's edge says impose: false in the base (Linux refuses true: QOS149)
    "devices.*.interfaces.*.impose": both(MX_MPLS, CISCO_MPLS, each_interface("impose", False, role="edge"),
                                          put("devices.lx1.interfaces.eth1.impose", True)),
    # core interfaces queued by the device's defaults: JUNOS and IOS MQC drop their scheduler map or output policy;
    # Catalyst, IOS XR, SR OS and Linux refuse the field (QOS090)
    "devices.*.interfaces.*.egress-queueing": each_interface("egress-queueing", "device-default", role="core"),
    "mpls.tunnel-model": both(EXP_ALL, each_interface("encapsulation", "mpls", role="core"),
                              put("mpls.tunnel-model", "pipe")),
    "services.*.exp": both(MX_MPLS, CISCO_MPLS),
    "services.*.pcp": both(PCP_ALL, put("devices.mx1.interfaces.xe-0/0/0.encapsulation", ["ip", "vlan"]), CISCO_VLAN,
                           SR_VLAN),
    "devices.*.interfaces.*.classifier": both(put("classifiers.other", {"rules": [
        {"name": "all-lbe", "service": "lbe", "match": {"destination": ["198.18.9.0/24"]}}]}),
        each_interface("classifier", "other", role="edge")),
    "devices.*.interfaces.*.services": each_interface("services", ["best-effort", "premium", "lbe"], role="core"),
    "devices.*.interfaces.*.port-type": each_interface("port-type", "1p3q8t", role="core"),
    "devices.*.interfaces.*.unit": each_interface("unit", 100, role="core"),
    "devices.*.interfaces.*.local-senders": each_interface("local-senders", True, role="core"),
    "hosts.*.description": put("hosts.h1.description", "a storage element"),
    "hosts.*.interfaces.*.description": put("hosts.h1.interfaces.eth0.description", "data"),
    "hosts.*.interfaces.*.speed": put("hosts.h1.interfaces.eth0.speed", "25G"),
    "hosts.*.interfaces.*.txqueuelen": put("hosts.h1.interfaces.eth0.txqueuelen", 5000),
    "hosts.*.paths.*.peer": put("hosts.h1.paths.0.peer", "near.example"),
    "hosts.*.paths.*.rtt": put("hosts.h1.paths.0.rtt", "80ms"),
    "hosts.*.paths.*.rate": put("hosts.h1.paths.0.rate", "2G"),
    "hosts.*.paths.*.service": both(put("hosts.h1.paths.0.service", "assured"), drop("hosts.h1.paths.0.rate")),
    "hosts.*.paths.*.description": put("hosts.h1.paths.0.description", "to the far site"),
    "hosts.*.overrides.rmem_max": put("hosts.h1.overrides.rmem_max", "256MB"),
    "hosts.*.overrides.wmem_max": put("hosts.h1.overrides.wmem_max", "128MB"),
    "hosts.*.overrides.tcp_rmem": put("hosts.h1.overrides.tcp_rmem", [4096, 131072, "256MB"]),
    "hosts.*.overrides.tcp_wmem": put("hosts.h1.overrides.tcp_wmem", [4096, 16384, "128MB"]),
    "hosts.*.overrides.tcp_congestion_control": put("hosts.h1.overrides.tcp_congestion_control", "bbr"),
    "hosts.*.overrides.default_qdisc": put("hosts.h1.overrides.default_qdisc", "fq"),
}

# (target, field): silently dropped today by a target.  Each is a defect to fix; the test fails when an entry is no
# longer silent, so this list only shrinks.
KNOWN_SILENT: set[tuple[str, str]] = set()


def write(tmp_path: Path, name: str, policy: dict[str, Any]) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    return path


def compile_units(path: Path) -> tuple[list[Any], dict[tuple[str, str], dict[str, str]]]:
    """(diagnostics, (target, unit) -> {file: text}) of a policy, every unit rendered even with warnings."""
    result = pipeline.validate(path)
    assert result.policy is not None, result.diagnostics
    files: dict[tuple[str, str], dict[str, str]] = {}
    if any(d.is_error and d.code != "QOS090" and not d.code.startswith("QOS1") for d in result.diagnostics):
        return result.diagnostics, files  # the policy itself is wrong: nothing is compiled
    for target, unit in pipeline.select(result.policy):
        found, lowered = pipeline.lower(target, result.policy, unit)
        if any(d.is_error for d in found):
            continue
        outputs, problems = pipeline.render(target, result.policy, unit, lowered)
        assert not problems, problems
        files[(target.name, unit.name)] = {o.path: o.text for o in outputs}
    return result.diagnostics, files


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], dict[tuple[str, str], dict[str, str]]]:
    path = write(tmp_path_factory.mktemp("base"), "base", BASE)
    diags, files = compile_units(path)
    assert not [d for d in diags if d.is_error], [d.message for d in diags if d.is_error]
    assert {t for t, _ in files} == set(targets()), "every target compiles the base policy"
    return diags, files


def test_the_table_covers_every_target_field() -> None:
    missing = [f for f in fields.target_fields() if f not in TABLE]
    assert not missing, f"say how to set these fields in tests/test_fields.py TABLE: {missing}"
    stale = [f for f in TABLE if f not in fields.by_path()]
    assert not stale, f"fields no longer in the schema: {stale}"


@pytest.mark.parametrize("field", sorted(TABLE))
def test_field_is_rendered_or_refused(field: str, tmp_path: Path, base: Any) -> None:
    policy = copy.deepcopy(BASE)
    TABLE[field](policy)
    path = write(tmp_path, "changed", policy)
    diags, files = compile_units(path)
    base_diags, base_files = base
    loc_file = str(path)
    new = {(d.code, d.message) for d in diags} - {(d.code, d.message.replace(str(path), "")) for d in base_diags}
    problems = []
    scope = "hosts" if field.startswith("hosts.") else "devices"
    for name, target in targets().items():
        if target.serves != scope:
            continue
        units = {u for t, u in set(files) | set(base_files) if t == name}
        platform_names = set(target.platforms)
        supported = all(target.supports(field, target.platform_data[p]) for p in platform_names
                        if target.platform_data.get(p) is not None)
        unsupported = [d for d in diags if d.code == "QOS090" and f"target {name} " in d.message
                       and f"({field})" in d.message]
        if not supported:
            if not unsupported:
                problems.append(f"{name}: does not support {field}, but no QOS090 was reported")
            elif any(d.location is None or d.location.file != loc_file for d in unsupported):
                problems.append(f"{name}: QOS090 for {field} without its location in the policy")
            continue
        changed = any(files.get((name, u)) != base_files.get((name, u)) for u in units)
        # said: refused (error), or what the platform does with it instead (a warning, or info for a platform
        # fact such as QOS183: the one WRED ramp it runs)
        refused = any(d for d in diags if d.code != "QOS090" and (d.code, d.message) in new)
        silent = not changed and not refused
        if (name, field) in KNOWN_SILENT:
            if not silent:
                problems.append(f"{name}: {field} is no longer silent; remove it from KNOWN_SILENT")
            continue
        if silent:
            problems.append(f"{name}: claims to support {field}, but setting it changes neither its files nor "
                            "its diagnostics")
        if unsupported:
            problems.append(f"{name}: supports {field}, but QOS090 was reported for it")
    assert not problems, "\n".join(problems)


_NEW_FIELD = r'''
import json, sys
import qosc.schema as S
d = json.loads(S.schema_text())
new = {"type": "integer", "description": "A field no target implements yet."}
d["properties"]["services"]["additionalProperties"]["properties"]["queue"]["properties"]["frobnicate"] = new
d["properties"]["hosts"]["additionalProperties"]["properties"]["frobnicate"] = new
text = json.dumps(d)
S.schema_text = lambda: text
S.schema.cache_clear()
from qosc import pipeline
for path in sys.argv[1:]:
    for x in pipeline.validate(path).diagnostics:
        if x.code == "QOS090" or x.is_error:
            print(x.code, x.location.line if x.location else 0, x.message)
'''


def test_a_field_added_to_the_schema_is_refused_by_every_target_until_it_renders_it(tmp_path: Path) -> None:
    """The change exercise: a new policy field in the schema alone (no model, no target code) reaches no device
    silently: every target of every platform that the field reaches reports QOS090 at its line, because each
    target lists the fields it renders instead of deriving them from the schema."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    network = (root / "policies" / "assured-rate.yaml").read_text().splitlines(keepends=True)
    line = next(i for i, text in enumerate(network) if text.strip().startswith("queue: {share: 40%")) + 1
    network[line - 1] = network[line - 1].replace("priority: high}", "priority: high, frobnicate: 3}")
    hosts = (root / "policies" / "grid-hosts.yaml").read_text().replace(
        "    platform: linux\n", "    platform: linux\n    frobnicate: 3\n", 1)
    host_line = hosts[:hosts.index("    frobnicate: 3")].count("\n") + 1
    (tmp_path / "n.yaml").write_text("".join(network))
    (tmp_path / "h.yaml").write_text(hosts)
    proc = subprocess.run([sys.executable, "-c", _NEW_FIELD, str(tmp_path / "n.yaml"), str(tmp_path / "h.yaml")],
                          capture_output=True, text=True, check=False, cwd=root)
    assert proc.returncode == 0, proc.stderr
    found = {(code, int(at)) for code, at, _ in (row.split(" ", 2) for row in proc.stdout.splitlines())}
    assert found == {("QOS090", line), ("QOS090", host_line)}, proc.stdout
    reached = {t.name for t in targets().values()} - {"linux-host"}
    for name in reached:
        assert f"target {name} does not support it" in proc.stdout, (name, proc.stdout)
    assert "target linux-host does not support it" in proc.stdout

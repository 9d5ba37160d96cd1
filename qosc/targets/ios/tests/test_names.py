"""Class-map and ACL names are allocated per device (issue 18): services named like a rule's class-map
(`c1-r1`) or like IOS's predefined class (`class-default`) never share a name with another object.

Property test: names are drawn so they collide on purpose; the parsed output must define every class-map
and ACL once, never define `class-default`, and each class must still match what its owner matches.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosc import api
from qosc.targets.registry import targets

COLLIDING = st.sampled_from(["c1-r1", "c1-r2", "class-default", "c1-r1-v6", "x-dscp", "c1", "r1"])
PLATFORMS = st.sampled_from(["ios-xe", "ios-gsr", "catalyst6500"])


def policy(names: list[str], platform: str) -> dict:
    services = {"best-effort": {"kind": "best-effort", "default": True, "queue": {"share": "40%"}}}
    codes = ["af21", "af31", "af41"]
    for name, code in zip(names, codes, strict=False):
        services[name] = {"kind": "other", "dscp": [code], "queue": {"share": "10%"}}
    rules = [{"name": f"r{i + 1}", "match": {"source": [f"198.18.{i + 1}.0/24", f"2001:db8:{i + 1}::/48"]},
              "service": name} for i, name in enumerate(names)]
    iface = {"role": "edge", "classifier": "c1", "speed": "1G"}
    if platform == "catalyst6500":
        return {"qosc": 1, "name": "t", "services": services, "classifiers": {"c1": {"rules": rules}},
                "devices": {"r1": {"platform": platform, "interfaces": {
                    "GigabitEthernet1/1": {**iface, "port-type": "1p7q8t"}}}}}
    return {"qosc": 1, "name": "t", "services": services, "classifiers": {"c1": {"rules": rules}},
            "devices": {"r1": {"platform": platform, "interfaces": {"Gi0/0": iface}}}}


def parsed(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    """(class-map -> match lines, ACL -> entries, every `class X` referenced in a policy-map)."""
    class_maps: dict[str, list[str]] = {}
    acls: dict[str, list[str]] = {}
    used: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.lstrip().startswith("!"):
            continue
        if m := re.fullmatch(r"class-map match-any (\S+)", line):
            assert m[1] not in class_maps, f"class-map {m[1]} defined twice"
            current = class_maps[m[1]] = []
        elif m := re.fullmatch(r"(?:ip access-list extended|ipv6 access-list) (\S+)", line):
            assert m[1] not in acls, f"ACL {m[1]} defined twice"
            current = acls[m[1]] = []
        elif m := re.fullmatch(r" class (\S+)", line):
            used.append(m[1])
            current = None
        elif not line.startswith(" "):
            current = None
        elif current is not None:
            current.append(line.strip())
    return class_maps, acls, used


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(COLLIDING, min_size=1, max_size=3, unique=True), platform=PLATFORMS)
def test_colliding_names_get_distinct_class_maps_and_acls(tmp_path: Path, names: list[str], platform: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(policy(names, platform), sort_keys=False), encoding="utf-8")
    result = api.validate(path)
    assert result.policy is not None and result.ok, [d.message for d in result.diagnostics if d.is_error]
    target = targets()["catalyst6500" if platform == "catalyst6500" else "ios-mqc"]
    unit = result.policy.device_map["r1"]
    (out,) = target.render(target.lower(result.policy, unit, target.platform_data[platform]))
    class_maps, acls, used = parsed(out.text)
    assert "class-default" not in class_maps
    assert all(u == "class-default" or u in class_maps for u in used), (used, sorted(class_maps))
    for i, _ in enumerate(names):  # each rule's class matches its own ACLs, which hold its own prefixes
        rule_maps = [m for m in class_maps.values() if any(f"198.18.{i + 1}.0 " in e
                                                             for a in m if a.startswith("match access-group")
                                                             for e in acls.get(a.split()[-1], []))]
        assert len(rule_maps) == 1, (i, class_maps, acls)
        v6 = [a.split()[-1] for a in rule_maps[0] if a.split()[-1] in acls
              and any(f"2001:db8:{i + 1}::/48" in e for e in acls[a.split()[-1]])]
        assert len(v6) == 1
    if platform != "catalyst6500":  # ios-mqc: each service's egress class matches its own code point
        for name, code in zip(names, ["af21", "af31", "af41"], strict=False):
            wanted = "match ip precedence" if platform == "ios-gsr" else "match dscp"
            owners = [c for c, m in class_maps.items() if m and all(x.startswith(wanted) for x in m)
                      and (code in " ".join(m) or platform == "ios-gsr")]
            assert owners, (name, class_maps)

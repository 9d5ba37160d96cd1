"""The seed configurations of domain.md 4.1-4.3, as the devices show them, import; their flaws are reported at
their configuration lines.

data/seeds/ holds them hand-written from the domain brief in the vendors' documented syntax (IOS 12.0S MQC on
the GSR, IOS 12.1 PFC QoS on the Catalyst 6500, JUNOS 5.x class-of-service on the M-series), with the
statements a running configuration carries beside QoS (routing, addresses, switchport), which import ignores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from qosc.behaviour.tests.test_cli import qosc

SEEDS = Path(__file__).parent / "data" / "seeds"


def line_of(name: str, text: str) -> int:
    """The 1-based line of the seed that holds `text` (exactly once)."""
    lines = (SEEDS / name).read_text(encoding="utf-8").splitlines()
    hits = [i for i, line in enumerate(lines, 1) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def imported(tmp: Path, spec: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """qosc import of one seed: exit status, diagnostics (JSON), the written policy."""
    out = tmp / "imported.yaml"
    platform, _, name = spec.partition(":")
    run = qosc("import", f"{platform}:{SEEDS / name}", "-o", str(out), "--format", "json")
    diagnostics = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert out.exists(), run.stdout + run.stderr
    return run.returncode, diagnostics, yaml.safe_load(out.read_text(encoding="utf-8"))


def at(diagnostics: list[dict[str, Any]], name: str) -> set[tuple[str, int]]:
    """(code, line) of the diagnostics located in the seed `name`."""
    return {(d["code"], d["line"]) for d in diagnostics if str(d.get("file", "")).endswith(name)}


def test_geant_m_series_final_lbe_imports_and_its_undefined_scheduler_is_reported_at_its_line(tmp_path: Path) -> None:
    status, diagnostics, policy = imported(tmp_path, "junos-m-series:geant-m-series-lbe.conf")
    assert status == 0  # the flaw is a warning: the policy is written and validates
    assert ("QOS174", line_of("geant-m-series-lbe.conf", "scheduler nc-scheduler;")) in at(
        diagnostics, "geant-m-series-lbe.conf")
    message = next(d["message"] for d in diagnostics if d["code"] == "QOS174")
    assert "nc-scheduler" in message and "not defined" in message
    s = policy["services"]
    queues = {name: (body["kind"], body.get("queue", {})) for name, body in s.items()}
    assert queues["best-effort"] == ("best-effort", {"share": "5%", "priority": "high", "buffer": "5%"})
    assert queues["expedited-forwarding"] == ("premium", {"share": "90%", "priority": "high", "buffer": "90%"})
    assert queues["lbe"] == ("lbe", {"share": "0%", "priority": "low", "buffer": "0%"})
    assert queues["network-control"] == ("network-control", {})  # its scheduler is missing
    assert "cs1" in s["lbe"]["dscp"] and s["expedited-forwarding"]["dscp"] == ["ef"]
    profiles = policy["drop-profiles"]
    assert profiles[s["best-effort"]["drop-profile"]] == {"points": [[15.0, 30.0], [19.0, 50.0], [24.0, 75.0],
                                                                     [30.0, 100.0]]}
    assert profiles[s["expedited-forwarding"]["drop-profile"]] == {"points": [[10.0, 100.0]]}
    assert set(policy["devices"]["geant-m-series-lbe"]["interfaces"]) == {"so-0/0/0", "so-1/0/0"}


def test_gsr_datagrid_103_percent_is_reported_at_the_interface_and_no_invalid_policy_is_written(
        tmp_path: Path) -> None:
    """4+4+4+16+75 = 103 %: IOS rejects the policy-map, and the policy it would import is invalid (QOS040).  Import
    used to write it anyway (issue 22); it now leaves the interface out, says why at its line, and, with nothing
    else to lift, writes nothing."""
    out = tmp_path / "imported.yaml"
    run = qosc("import", f"ios-gsr:{SEEDS / 'gsr-12000-datagrid.cfg'}", "-o", str(out), "--format", "json")
    diagnostics = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert run.returncode == 1 and not out.exists()
    line = line_of("gsr-12000-datagrid.cfg", "interface POS0/0")
    left_out = [d for d in diagnostics if d["code"] == "QOS172" and d.get("line") == line and "QOS040" in d["message"]]
    assert left_out and "103%" in left_out[0]["message"], diagnostics
    assert {d["code"] for d in diagnostics if d["severity"] == "error"} == {"QOS203"}


def test_catalyst_2q2t_datatag_imports_with_its_weights_and_queue_limits(tmp_path: Path) -> None:
    status, diagnostics, policy = imported(tmp_path, "catalyst6500:cat6500-datatag.cfg")
    assert status == 0, diagnostics
    s = policy["services"]
    premium = next(body for body in s.values() if "ef" in body["dscp"])
    default = next(body for body in s.values() if body.get("default"))
    assert (premium["queue"]["share"], premium["queue"]["buffer"]) == ("91%", "10%")
    assert (default["queue"]["share"], default["queue"]["buffer"]) == ("9%", "80%")
    ports = policy["devices"]["cat6500-datatag"]["interfaces"]
    edge, uplink = ports["GigabitEthernet1/1"], ports["GigabitEthernet1/2"]
    assert (edge["role"], edge["trust"], edge["port-type"]) == ("edge", "none", "2q2t")  # no `mls qos trust`
    assert (uplink["role"], uplink["port-type"]) == ("core", "2q2t")
    rule = policy["classifiers"][edge["classifier"]]["rules"][0]
    assert rule["match"] == {"source": ["198.18.10.0/24"], "protocol": ["udp"], "destination-port": ["5004-5005"]}
    assert policy["policers"][rule["policer"]]["cir"] == "80M"
    assert policy["policers"][rule["policer"]]["cbs"] == "40KB"
    assert not [d for d in diagnostics if d["severity"] == "error"]

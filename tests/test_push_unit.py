"""The push layer without peers: JUNOS text and XML, the YANG module, credentials, the CLI's edges."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from lxml import etree
from push.fixtures import qosc
from push.lab import lab_policy

from qosc import api
from qosc.push import credentials, runner
from qosc.push.base import Status
from qosc.targets.junos.push.text import for_load, parse, serialise
from qosc.targets.junos.push.xml import ConversionError, to_text, to_xml
from qosc.targets.junos.push.yang import yang_module

ROOT = Path(__file__).resolve().parent.parent


def junos_outputs():
    for path in sorted((ROOT / "policies").glob("*.yaml")):
        result = api.validate(path)
        if not result.ok:
            continue
        for out in api.compile_policy(result, ["junos"]):
            if out.path.endswith(".conf"):
                yield out


def test_yang_module_is_generated_from_the_schema():
    assert (ROOT / "yang" / "qosc-junos-qos.yang").read_text() == yang_module(), \
        "run: python -m qosc.targets.junos.push.yang > yang/qosc-junos-qos.yang"


def test_every_reference_junos_output_converts_and_round_trips():
    outputs = list(junos_outputs())
    assert outputs
    for out in outputs:
        tree = parse(out.text)
        assert parse(serialise(tree)) == tree
        loaded = for_load(out.text)
        assert loaded.startswith("replace: class-of-service {")
        assert "    replace: policer" in loaded or "policer" not in out.text
        root = to_xml(out.text)
        assert root.find("{*}class-of-service") is not None
        plain = to_xml(out.text, replace_owned=False)  # XML -> JUNOS text -> XML is the identity
        assert etree.tostring(to_xml(to_text(plain), replace_owned=False)) == etree.tostring(plain)


def test_unknown_statement_is_an_error_not_dropped():
    with pytest.raises(ConversionError, match=r"refused by Juniper's YANG"):
        to_xml("class-of-service {\n    bogus-knob 1;\n}\n")


def test_credentials_from_environment_and_ssh_config(tmp_path, monkeypatch):
    config = tmp_path / "ssh_config"
    config.write_text("Host r1\n  HostName 192.0.2.1\n  Port 2222\n  User cfguser\n  IdentityFile ~/id_test\n"
                      f"  UserKnownHostsFile {tmp_path}/kh\n")
    for name in list(__import__("os").environ):
        if name.startswith("QOSC_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("QOSC_SSH_CONFIG", str(config))
    c = credentials.lookup("r1", None, 830)
    assert (c.host, c.port, c.username, c.known_hosts) == ("192.0.2.1", 2222, "cfguser", f"{tmp_path}/kh")
    assert c.key_file.endswith("id_test")
    monkeypatch.setenv("QOSC_PORT_R1", "1830")
    monkeypatch.setenv("QOSC_USER", "envuser")
    monkeypatch.setenv("QOSC_PASSWORD", "Very-secret-1")
    c = credentials.lookup("r1", "198.51.100.7", 830)
    assert (c.host, c.port, c.username) == ("198.51.100.7", 1830, "envuser")  # the policy's address wins
    assert "Very-secret-1" not in repr(c) and "Very-secret-1" not in str(c.password)
    assert credentials.redact("login with Very-secret-1 failed") == "login with **** failed"
    assert credentials.env_key("de1.de") == "DE1_DE"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_device_fails_with_exit_1_and_never_prints_the_password(tmp_path):
    port = closed_port()
    kh = tmp_path / "kh"
    kh.write_text(f"[127.0.0.1]:{port} "
                  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDbVNk0Pv1xx3ZY1aP3XfrbIBSv7xv0Q1vZcF0PZqKEm\n")
    secret = "Pa55-never-shown"
    env = {"HOME": str(tmp_path), "QOSC_USER": "u", "QOSC_PASSWORD": secret, "QOSC_KNOWN_HOSTS": str(kh),
           "QOSC_PORT": str(port)}
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "edge-mx", "--device", "asr-1", "--commit",
                "--report", str(tmp_path / "r.json"), env=env, timeout=120)
    assert proc.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert {d["device"]: d["status"] for d in report["devices"]} == {"edge-mx": "failed", "asr-1": "failed"}
    assert all(d["stage"] == "open" for d in report["devices"])
    for text in (proc.stdout, proc.stderr, (tmp_path / "r.json").read_text()):
        assert secret not in text


def test_cli_usage_and_policy_errors(tmp_path):
    policy = lab_policy(tmp_path)
    assert qosc("push", str(policy), "--workers", "0").returncode == 2
    unknown = qosc("push", str(policy), "--device", "no-such-router")
    assert unknown.returncode == 1 and "QOS102" in unknown.stderr
    broken = tmp_path / "broken.yaml"
    broken.write_text(policy.read_text().replace("priority: low", "prority: low"))
    bad = qosc("push", str(broken))
    assert bad.returncode == 1 and "QOS010" in bad.stderr and "DEVICE" not in bad.stdout


def test_table_and_report_shapes():
    results = [runner.Result("a", "junos", Status.CHANGED, True, diff="+x\n", method="netconf-junos"),
               runner.Result("b", "ios-mqc", Status.ROLLED_BACK, False, stage="commit", error="% Invalid input")]
    text = runner.table(results)
    assert "changed (dry run: not committed)" in text and "rolled back" in text
    assert text.splitlines()[-1] == "0 unchanged, 1 changed, 0 failed, 1 rolled back, 0 unknown (2 devices)"
    data = json.loads(runner.report(results, runner.Options(), ["p.yaml"]))
    assert data["summary"]["rolled back"] == 1 and data["devices"][1]["error"] == "% Invalid input"
    assert runner.failed(results)

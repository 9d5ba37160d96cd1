"""Push to Cisco IOS over SSH (netmiko) against FakeNOS cisco_ios hosts extended into a config-mode simulator.

tests/push/ios_sim.py documents what the simulator adds to FakeNOS.  The
device's state (running config, flash, startup, the prompt each session ended
at, every command typed) is checked on the simulator itself.
"""

from __future__ import annotations

import json

import pytest
from push.fixtures import (
    INITIAL_IOS,
    ios_lab_fixture,  # noqa: F401  (provides the `ios_lab` fixture)
    push_commit,
    qosc,
    verify_clean,
)
from push.ios_sim import parse as sim_parse
from push.ios_sim import render as sim_render
from push.lab import lab_policy

from qosc.targets.ios.push import as_diff, plan


def env_for(lab, tmp_path, device="asr-1"):
    key = device.upper().replace("-", "_")
    return {"HOME": str(tmp_path), "QOSC_USER": "netops", "QOSC_PASSWORD": lab.password,
            "QOSC_ENABLE_SECRET": lab.secret, "QOSC_KNOWN_HOSTS": str(lab.known_hosts),
            f"QOSC_PORT_{key}": str(lab.ports[device])}


def initial_running(name="asr-1"):
    return sim_render(sim_parse(INITIAL_IOS), name)


def no_secrets(lab, *texts):
    for text in texts:
        assert lab.password not in text and lab.secret not in text


def test_dry_run_shows_the_planned_difference_and_changes_nothing(ios_lab, tmp_path):
    lab = ios_lab()
    dev = lab.devices["asr-1"]
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "asr-1", "--report", str(tmp_path / "r.json"),
                env=env_for(lab, tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "+ policy-map assured-rate-in" in proc.stdout
    assert "-  service-policy output old-qos" in proc.stdout  # the owned line the policy no longer has
    assert "changed (dry run: not committed)" in proc.stdout
    assert dev.running_text() == initial_running()
    assert dev.flash == {} and dev.startup == ""
    assert not any(c.startswith("configure terminal") for c in dev.log)
    no_secrets(lab, proc.stdout, proc.stderr, (tmp_path / "r.json").read_text())


@pytest.mark.slow
def test_commit_applies_only_the_difference_then_saves_and_is_unchanged_next_time(ios_lab, tmp_path):
    lab = ios_lab()
    dev = lab.devices["asr-1"]
    policy = lab_policy(tmp_path)
    proc = qosc("push", str(policy), "--device", "asr-1", "--commit", env=env_for(lab, tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = dev.running_text()
    assert "policy-map assured-rate-in" in text and "service-policy output old-qos" not in text
    assert " description customer site B" in text  # not qosc's: untouched
    assert "qosc-rollback.cfg" in dev.flash and dev.startup == text  # saved to startup after success
    assert dev.session_end_prompts[-1] == "asr-1#"
    again = qosc("push", str(policy), "--device", "asr-1", "--commit", env=env_for(lab, tmp_path))
    assert again.returncode == 0 and "unchanged" in again.stdout, again.stdout + again.stderr
    # only the difference is sent: change one share, and only that class is touched
    edited = lab_policy(tmp_path, edit={"queue: {share: 5%, buffer: 5%, priority: high}":
                                        "queue: {share: 6%, buffer: 5%, priority: high}"}, name="edited.yaml")
    typed = len(dev.log)
    third = qosc("push", str(edited), "--device", "asr-1", "--commit", env=env_for(lab, tmp_path))
    assert third.returncode == 0, third.stdout + third.stderr
    sent = dev.log[typed:]
    assert "no bandwidth percent 5" in sent and "bandwidth percent 6" in sent
    assert not any(c.startswith("ip access-list") for c in sent)
    no_secrets(lab, proc.stdout, proc.stderr, again.stdout, third.stdout, third.stderr)


def test_invalid_line_rolls_back_and_leaves_the_session_at_the_exec_prompt(ios_lab, tmp_path):
    lab = ios_lab(reject=r"^random-detect dscp af22")  # a box that lacks one command qosc emits
    dev = lab.devices["asr-1"]
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "asr-1", "--commit", "--report",
                str(tmp_path / "r.json"), env=env_for(lab, tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "rolled back" in proc.stdout and "Invalid input" in proc.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["devices"][0]["status"] == "rolled back" and report["summary"]["rolled back"] == 1
    # on the device: the bad line was typed, then the rollback copy was restored from exec mode
    assert "random-detect dscp af22 655 1310 10" in dev.log
    bad = dev.log.index("random-detect dscp af22 655 1310 10")
    assert "end" in dev.log[bad:] and "configure replace flash:qosc-rollback.cfg force" in dev.log[bad:]
    assert dev.running_text() == initial_running()  # rollback applied
    assert dev.startup == ""  # never saved
    assert dev.session_end_prompts and dev.session_end_prompts[-1] == "asr-1#"  # exec prompt, not config
    no_secrets(lab, proc.stdout, proc.stderr, (tmp_path / "r.json").read_text())


def test_many_devices_in_parallel_with_a_per_device_table(ios_lab, tmp_path):
    names = ["asr-1", "gsr-2"]
    lab = ios_lab(names)
    lab.devices["gsr-2"].reject = __import__("re").compile(r"^random-detect")
    env = {**env_for(lab, tmp_path, "asr-1"), **env_for(lab, tmp_path, "gsr-2")}
    proc = qosc("push", str(lab_policy(tmp_path)), "--device", "asr-1", "--device", "gsr-2", "--commit",
                "--workers", "2", env=env)
    assert proc.returncode == 1  # one device failed
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith(("asr-1", "gsr-2"))}
    assert "changed" in rows["asr-1"] and "rolled back" in rows["gsr-2"]
    assert "1 changed" in proc.stdout and "1 rolled back" in proc.stdout
    assert "qosc push: [2/2]" in proc.stderr  # progress on stderr


def test_plan_is_empty_when_running_matches_and_removes_stale_owned_lines():
    compiled = ("policy-map p\n class c\n  bandwidth percent 10\n  ! a comment\n!\ninterface Gi1\n ! note\n"
                " service-policy output p\n!\nend\n")
    running = ("interface Gi1\n description keep me\n service-policy output p\npolicy-map p\n class c\n"
               "  bandwidth percent 10\n  set dscp cs1\n")
    assert plan(running, compiled) == ["policy-map p", "class c", "no set dscp cs1", "exit", "exit"]
    assert plan(compiled, compiled) == []
    assert as_diff(plan("", compiled)).splitlines()[:3] == ["+ policy-map p", "+  class c",
                                                            "+   bandwidth percent 10"]


def test_verify_from_device_reads_show_running_config(ios_lab, tmp_path):
    """qosc verify --from-device over the IOS CLI (it was QOS170: the driver could not read): `show
    running-config` in exec mode, nothing typed in config mode; after a push it matches, another hand's share is
    drift located in the running text."""
    lab = ios_lab()
    dev = lab.devices["asr-1"]
    policy = lab_policy(tmp_path)
    env = env_for(lab, tmp_path)
    push_commit(policy, "asr-1", env)
    before, typed = dev.running_text(), len(dev.log)
    ok = verify_clean(policy, "asr-1", env)
    assert dev.running_text() == before
    assert not [c for c in dev.log[typed:] if c.startswith(("conf", "no ", "bandwidth", "end"))], dev.log[typed:]
    lbe = " class lbe\n  bandwidth percent "
    assert lbe + "1\n" in before
    dev.running = sim_parse(before.replace(lbe + "1\n", lbe + "4\n"))
    bad = qosc("verify", str(policy), "--from-device", "asr-1", env=env)
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1 and "lbe: share 1% expected, 4% found" in out, out
    assert "(configuration: asr-1 (running):" in out, out
    no_secrets(lab, ok.stdout, ok.stderr, out)

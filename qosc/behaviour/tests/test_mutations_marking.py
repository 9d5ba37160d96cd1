"""Mutation tests in the 3-bit domains, end to end through the command line: an EXP or 802.1p classifier value
moved to another class, or an EXP or PCP rewrite changed (on a PE's uplink: the EXP it imposes), makes `qosc
verify` and `qosc equiv` fail (exit 1) naming the device, the interface, the value and the class.  The JUNOS
devices of examples/mpls-backbone.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.tests.test_cli import qosc
from qosc.targets.junos.tests.backbone import junos_backbone

EXP = "exp mpls-backbone-exp {\n            forwarding-class best-effort {\n"
PCP = "ieee-802.1 mpls-backbone-8021p {\n            forwarding-class best-effort {\n"
BE = "                loss-priority low code-points [ 000 100 ];\n            }\n"
PREMIUM = "            forwarding-class ip-premium {\n                loss-priority low code-points 101;\n"
RULE_BE = "".join(f"                loss-priority {lp} code-point 000;\n" for lp in ("low", "medium-high", "high")) + \
    "            }\n"
RULE_PREMIUM = "            forwarding-class ip-premium {\n                loss-priority low code-point 101;"
MOVED = ("                loss-priority low code-points [ 000 100 101 ];\n            }\n"
         "            forwarding-class ip-premium {\n                loss-priority low code-points 110;\n")


def _moved(head: str) -> tuple[str, str]:
    """Value 101 (Premium) moved to best effort in a classifier (Premium given an unused value instead)."""
    return head + BE + PREMIUM, head + MOVED.replace("code-points 110", "code-points 100")


def _rewritten(head: str) -> tuple[str, str]:
    """Premium's in-contract traffic written 100 instead of 101 by the rewrite rule `head` names."""
    return head + RULE_BE + RULE_PREMIUM, head + RULE_BE + RULE_PREMIUM.replace("code-point 101", "code-point 100")


# (device, mutation, (old, new), [(interface, what verify says)])
MUTATIONS = [
    ("p-mx", "exp classifier", _moved(EXP), [("xe-0/0/0", "EXP 5: classified to ip-premium expected, "
                                                              "best-effort found")]),
    ("p-mx", "exp rewrite", _rewritten(EXP), [("xe-0/0/1", "ip-premium (drop precedence 1): EXP rewrite to 5 "
                                                              "expected, 4 found")]),
    ("pe-mx", "pcp classifier", _moved(PCP), [("ge-0/0/2", "PCP 5: classified to ip-premium expected, "
                                                              "best-effort found")]),
    ("pe-mx", "pcp rewrite", _rewritten(PCP), [("ge-0/0/2", "ip-premium (drop precedence 1): PCP rewrite to 5 "
                                                               "expected, 4 found")]),
    ("pe-mx", "imposed exp", _rewritten(EXP), [
        ("ge-0/0/1", "ip-premium (drop precedence 1): EXP imposition to 5 expected, 4 found"),
        ("xe-0/1/0", "ip-premium (drop precedence 1): EXP rewrite to 5 expected, 4 found")]),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("backbone")
    policy = junos_backbone(folder)
    out = folder / "out"
    done = qosc("compile", str(policy), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    return policy, out / "junos"


@pytest.mark.parametrize(("device", "mutation", "edit", "says"), MUTATIONS,
                         ids=[f"{m[0]}-{m[1].replace(' ', '-')}" for m in MUTATIONS])
def test_a_changed_exp_or_pcp_value_fails_verify_and_equiv(compiled: tuple[Path, Path], tmp_path: Path, device: str,
                                                          mutation: str, edit: tuple[str, str],
                                                          says: list[tuple[str, str]]) -> None:
    policy, folder = compiled
    original = folder / f"{device}.conf"
    text = original.read_text()
    old, new = edit
    at = text.index(old)  # raises if the mutation no longer applies: the test must be updated
    changed = tmp_path / f"changed-{device}.conf"
    changed.write_text(text[:at] + new + text[at + len(old):])

    clean = qosc("verify", str(policy), "--config", f"{device}={original}")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    verify = qosc("verify", str(policy), "--config", f"{device}={changed}")
    out = verify.stdout + verify.stderr
    assert verify.returncode == 1, out
    for interface, what in says:
        assert any("[QOS176]" in line and f"{device}:{interface}: {what}" in line and f"{changed}:" in line
                   for line in out.splitlines()), (interface, what, out)

    equiv = qosc("equiv", f"junos-mx:{original}", f"junos-mx:{changed}")
    out = equiv.stdout + equiv.stderr
    assert equiv.returncode == 1, out
    for interface, what in says:
        value = what.split(":")[0].split(" (")[0]
        assert any("[QOS177]" in line and f":{interface}: " in line and value in line for line in out.splitlines()), \
            (interface, value, out)

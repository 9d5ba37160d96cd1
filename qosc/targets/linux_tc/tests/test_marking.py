"""linux-tc and the marking domains (issue 21): what the batch says for EXP and 802.1p, and what it refuses.

What the kernel does with these lines is tests/test_lab_marking.py (real frames, HTB's counters); what the
reader makes of them is read/tests/test_marks_reader.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from qosc import api
from qosc.targets.linux_tc.read.cbpf import run
from qosc.targets.linux_tc.tests.support import ROOT, compile_device, marking_services, write_policy

EXAMPLE = ROOT / "examples" / "mpls-backbone.yaml"
POLICY = """\
qosc: 1
name: marks
""" + marking_services(exp_high=4) + """\
devices:
  lx:
    platform: linux
    interfaces:
"""


def _batch(tmp_path: Path, interfaces: str, name: str = "eth0") -> str:
    files = compile_device(write_policy(tmp_path, POLICY + interfaces), "lx")
    return files[f"lx/{name}.tc"]


def _diagnostics(tmp_path: Path, text: str) -> list[tuple[str, str, int, str]]:
    path = write_policy(tmp_path, text)
    result = api.validate(path)
    assert result.policy is not None, result.diagnostics
    api.compile_policy(result, ["linux-tc"], ["lx"])
    return [(d.code, d.severity.value, d.location.line if d.location else 0, d.message) for d in result.diagnostics]


def _filters(batch: str, pattern: str) -> list[str]:
    return [line for line in batch.splitlines() if line.startswith("filter") and re.search(pattern, line)]


def test_the_backbone_linux_device_compiles_with_no_error(tmp_path: Path) -> None:
    """examples/mpls-backbone.yaml's ce-linux compiles (its statements pass the tc grammar, or compiling would
    report QOS199), and nothing the whole example reports is linux-tc's error; eth1, a VLAN trunk of the default
    trust and rewrite, classifies on PCP and writes it, and QOS149 says what Linux does with that."""
    full = api.validate(EXAMPLE)
    assert not [d for d in full.diagnostics if d.is_error and "linux-tc" in d.message], full.diagnostics
    policy = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    policy["devices"] = {"ce-linux": policy["devices"]["ce-linux"]}
    path = tmp_path / "ce.yaml"
    path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    files = compile_device(path, "ce-linux")
    eth1 = files["ce-linux/eth1.tc"]
    assert len(_filters(eth1, r"protocol all prio 1[123] bpf bytecode ")) == 8
    assert _filters(eth1, r"protocol ip prio 21 u32 match ip dsfield 0xb8 0xfc flowid 1:11 action skbedit "
                          r"priority :5 pipe$")
    assert _filters(eth1, r"protocol all prio 31 u32 match u32 0 0 flowid 1:10 action skbedit priority :0 pipe$")
    assert "egress-qos-map holds 1:1 2:2 3:3 5:5 6:6" in files["ce-linux/qosc-tc.sh"]
    codes = [(d.code, d.severity.value) for d in api.validate(path).diagnostics]
    assert ("QOS149", "warning") in codes


def test_an_mpls_core_classifies_and_rewrites_the_top_labels_exp(tmp_path: Path) -> None:
    """One mpls_uc filter per EXP value on the TC bits of the top label (bits 9-11), its class's EXP written at
    the value's drop precedence (the last digit of the prio): EXP 3 is assured's medium, EXP 4 its high."""
    batch = _batch(tmp_path, "      eth0: {role: core, speed: 1G, encapsulation: mpls}\n")
    exp = _filters(batch, "protocol mpls_uc")
    assert len(exp) == 8
    found = {int(m[2], 16) >> 9: (int(m[1]), m[3], int(m[4])) for line in exp if (m := re.search(
        r"prio (\d+) u32 match u32 (0x[0-9a-f]{8}) 0x00000e00 at 0 flowid (\S+) action mpls modify tc (\d) pipe$",
        line))}
    assert found == {0: (11, "1:10", 0), 1: (11, "1:13", 1), 2: (11, "1:12", 2), 3: (12, "1:12", 3),
                     4: (13, "1:12", 4), 5: (11, "1:11", 5), 6: (11, "1:14", 6), 7: (11, "1:14", 6)}
    assert not _filters(batch, "protocol (ip|ipv6) .* action"), "IP packets carry no label: no act_mpls on them"


def test_exp_rewrite_without_exp_classification_puts_labelled_packets_in_the_default_class(tmp_path: Path) -> None:
    batch = _batch(tmp_path, "      eth0: {role: core, speed: 1G, encapsulation: mpls, trust: dscp}\n")
    assert _filters(batch, "protocol mpls_uc") == [
        "filter add dev eth0 parent 1: protocol mpls_uc prio 11 u32 match u32 0 0 flowid 1:10 action mpls modify tc "
        "0 pipe"]


def test_pcp_filters_are_cbpf_programs_that_match_their_value_on_the_tag(tmp_path: Path) -> None:
    """The cls_bpf programs, run as the kernel runs classic BPF (read.cbpf): a frame tagged with the filter's PCP
    (whatever its VLAN id and DEI) returns -1 (the flowid), any other PCP or no tag 0."""
    batch = _batch(tmp_path, "      eth0: {role: core, speed: 1G, encapsulation: vlan, rewrite: []}\n")
    pcp = _filters(batch, "bpf bytecode")
    assert len(pcp) == 8 and not _filters(batch, "skbedit")
    by_value = {}
    for line in pcp:
        m = re.search(r"protocol all prio (\d+) bpf bytecode '(\d+),([0-9 ,]+)' flowid (\S+)$", line)
        assert m is not None, line
        program = [tuple(int(x) for x in insn.split()) for insn in m[3].split(",")]
        assert len(program) == int(m[2])
        matched = [v for v in range(8) for tci in (v << 13 | 100, v << 13 | 1 << 12 | 4000)
                   if run(program, tci) == 2**32 - 1]  # type: ignore[arg-type]
        assert run(program, None) == 0  # type: ignore[arg-type]
        assert len(matched) == 2 and matched[0] == matched[1], line
        by_value[matched[0]] = (int(m[1]), m[4])
    # a VLAN-only interface trusts PCP and not DSCP: its PCP filters come first (prio 11, 12 for precedence medium)
    assert by_value == {0: (11, "1:10"), 1: (11, "1:13"), 2: (11, "1:12"), 3: (12, "1:12"), 4: (11, "1:10"),
                        5: (11, "1:11"), 6: (11, "1:14"), 7: (11, "1:14")}


def test_an_interface_trusting_pcp_and_not_dscp_tries_the_tag_first(tmp_path: Path) -> None:
    batch = _batch(tmp_path, "      eth0: {role: core, speed: 1G, encapsulation: [ip, vlan], trust: pcp, "
                             "rewrite: []}\n")
    prios = [int(re.search(r" prio (\d+) ", line)[1]) for line in _filters(batch, "")]  # type: ignore[index]
    kinds = [("bpf" if " bpf " in line else "ip") for line in _filters(batch, "")]
    assert prios == sorted(prios) and kinds.index("ip") > max(i for i, k in enumerate(kinds) if k == "bpf")
    assert set(prios) == {11, 12, 21, 22}


def test_pcp_rewrite_sets_the_packet_priority_of_every_packet(tmp_path: Path) -> None:
    """Each DSCP filter sets the priority to its class's PCP at the code point's AF drop precedence (af22, af23:
    assured's 3), and a last filter does it for everything else (best effort's 0)."""
    batch = _batch(tmp_path, "      eth0: {role: core, speed: 1G, encapsulation: [ip, vlan], trust: dscp}\n")
    marks = {m[1]: int(m[2]) for line in _filters(batch, "protocol ip ") if (m := re.search(
        r"dsfield (0x[0-9a-f]{2}) 0xfc flowid \S+ action skbedit priority :(\d) pipe$", line))}
    assert marks == {"0x00": 0, "0xb8": 5, "0x48": 2, "0x50": 3, "0x58": 3, "0x20": 1, "0xc0": 6, "0xe0": 6}
    assert batch.splitlines()[-1] == ("filter add dev eth0 parent 1: protocol all prio 31 u32 match u32 0 0 flowid "
                                      "1:10 action skbedit priority :0 pipe")


def test_an_edge_trusting_pcp_marks_the_dscp_of_the_service_its_pcp_selects(tmp_path: Path) -> None:
    """At an edge, routing removes the tag before the egress: the frame's PCP picks the service (PCP 3: assured
    at drop precedence medium, so af22), whose DSCP it is marked with, IPv4 and IPv6; the rest as best effort."""
    batch = _batch(tmp_path, "      eth0: {role: edge, speed: 1G, encapsulation: [ip, vlan], trust: pcp}\n")
    ingress = [line for line in batch.splitlines() if " ingress " in line and " bpf " in line]
    assert len(ingress) == 2 * 7  # every value but 0 (best effort's: the default's filter marks it)
    af22 = [line for line in ingress if "' action pedit ex munge ip dsfield set 0x50 retain 0xfc pipe" in line]
    assert len(af22) == 1 and ",21 0 1 3," in af22[0]
    assert any("ingress protocol ip prio 3 u32 match u32 0 0 action pedit ex munge ip dsfield set 0x00" in line
               for line in batch.splitlines())


def test_imposition_and_the_pipe_and_uniform_models_are_refused_where_they_are_written(tmp_path: Path) -> None:
    text = POLICY.replace("name: marks\n", "name: marks\nmpls: {tunnel-model: pipe}\n") + (
        "      eth0: {role: core, speed: 1G, encapsulation: mpls}\n"
        "      eth1: {role: edge, speed: 1G}\n")
    found = _diagnostics(tmp_path, text)
    lines = text.splitlines()
    errors = {(line, msg.split(":")[0]) for code, sev, line, msg in found if code == "QOS149" and sev == "error"}
    assert {line for line, _ in errors} == {lines.index("mpls: {tunnel-model: pipe}") + 1, len(lines)}, found
    assert any("ip-route(8) 'encap mpls LABEL'" in m for c, _, _, m in found if c == "QOS149")
    assert any("only the TTL is propagated" in m for c, _, _, m in found if c == "QOS149")
    fixed = text.replace("{tunnel-model: pipe}", "{tunnel-model: short-pipe}").replace(
        "eth1: {role: edge, speed: 1G}", "eth1: {role: edge, speed: 1G, impose: false}")
    assert not [f for f in _diagnostics(tmp_path, fixed) if f[1] == "error"]


def test_a_drop_precedence_carried_in_the_dei_is_said_to_travel_without_it(tmp_path: Path) -> None:
    text = POLICY.replace("pcp: {low: [2], medium: [3], high: [3]}", "pcp: {low: [2], medium: [2], high: [3]}")
    found = _diagnostics(tmp_path, text + "      eth0: {role: core, speed: 1G, encapsulation: vlan, "
                                          "rewrite: []}\n")
    dei = [(sev, line, msg) for code, sev, line, msg in found if code == "QOS149"]
    assert [(sev, line) for sev, line, _ in dei] == [("warning", 10)], found
    assert "PCP 2 at drop precedence 2" in dei[0][2]

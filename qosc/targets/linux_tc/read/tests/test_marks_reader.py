"""Linux tc read back of the marking domains (issue 21): EXP and PCP classification, the EXP and PCP classes write.

data/marks.yaml's eth0 (MPLS and VLAN core: EXP and PCP classified and rewritten) compiles to a batch whose
rewrite actions this lab's kernel cannot load (act_mpls, skbedit: domain.md 4.4).  data/marks-eth0.dump is
what a kernel that has them shows: `tc -j qdisc/class/filter show` of the batch loaded here without its
actions (read.kernel), the actions written back into each filter's JSON as iproute2 6.1 prints them
(tc/m_mpls.c print_mpls: kind, mpls_action, tc; tc/m_skbedit.c print_skbedit: priority as a class id, ':5',
'none' for 0), and `ip -j -d link show` of a VLAN device with egress-qos-map 1:1 2:2 3:3 5:5 6:6
(ip/iplink_vlan.c vlan_print_map: from/to pairs).  _dump() makes it again; test_the_stored_dump_is_what_this_
kernel_shows proves the stored file is that, where network namespaces can be made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import intent
from qosc.behaviour.compare import compare
from qosc.behaviour.model import Device
from qosc.behaviour.readback import read as readback
from qosc.behaviour.roundtrip import round_trip
from qosc.model import Policy
from qosc.targets.linux_tc.read import kernel
from qosc.targets.linux_tc.tests.support import marking_services, need_netns, valid, write_policy

DATA = Path(__file__).parent / "data"
POLICY = DATA / "marks.yaml"
DUMP = DATA / "marks-eth0.dump"


def _read(text: str) -> tuple[Device, list[str]]:
    found = readback(text, "eth0.dump", "linux", "lx")
    assert found.behaviour is not None, found.diagnostics
    # QOS204 (info): the dump, as the kernel prints it, does not name its interface; it is read as eth0
    return found.behaviour, [f"{d.code} {d.message}" for d in found.diagnostics if d.code != "QOS204"]


def _findings(policy: Policy, found: Device) -> list[str]:
    return [f.message for f in compare(intent.device(policy, policy.device_map["lx"]), found)]


def test_a_dump_with_the_rewrite_actions_reads_back_as_the_policy() -> None:
    found, problems = _read(DUMP.read_text())
    assert problems == []
    assert _findings(valid(POLICY), found) == []
    eth0 = found.interfaces[0]
    assert eth0.classify_exp == (("1:10", 1), ("1:13", 1), ("1:12", 1), ("1:12", 2), ("1:12", 3), ("1:11", 1),
                                 ("1:14", 1), ("1:14", 1))
    assert eth0.classify_pcp[3] == ("1:12", 2) and eth0.classify_pcp[4] == ("1:10", 1)
    assert eth0.marked("exp") == {("1:10", 1): 0, ("1:11", 1): 5, ("1:12", 1): 2, ("1:12", 2): 3, ("1:12", 3): 4,
                                  ("1:13", 1): 1, ("1:14", 1): 6}
    assert eth0.marked("pcp")[("1:12", 3)] == 3 and eth0.marked("pcp")[("1:11", 1)] == 5


def test_a_changed_exp_rewrite_and_a_vlan_map_without_an_entry_are_found() -> None:
    text = DUMP.read_text()
    mutated = text.replace('"mpls_action":"modify","tc":5', '"mpls_action":"modify","tc":0', 1)
    mutated = mutated.replace('{"from":5,"to":5},', "")
    assert mutated.count('"tc":0') == text.count('"tc":0') + 1 and '"from":5,"to":5' not in mutated
    found, _ = _read(mutated)
    findings = _findings(valid(POLICY), found)
    assert findings == ["lx:eth0: premium (drop precedence 1): EXP rewrite to 5 expected, 0 found",
                        "lx:eth0: premium (drop precedence 1): PCP rewrite to 5 expected, 0 found"]


def test_priorities_set_on_an_interface_that_is_not_a_vlan_device_write_no_pcp() -> None:
    text = DUMP.read_text()
    link = text[text.rindex("[{\"ifindex\""):]
    veth = json.loads(link)
    veth[0]["linkinfo"] = {"info_kind": "veth"}
    found, problems = _read(text.replace(link, json.dumps(veth) + "\n"))
    assert any(p.startswith("QOS172 eth0 sets packet priorities for 802.1p, but is not a VLAN device")
               for p in problems)
    assert _findings(valid(POLICY), found) == ["lx:eth0: PCP rewrite: is present expected, absent found"]


def test_a_cbpf_filter_that_reads_packet_bytes_is_not_read() -> None:
    text = DUMP.read_text()
    # the first PCP program: load the tag -> load byte 14 of the packet (BPF_LD|BPF_B|BPF_ABS k=14)
    first = re.search(r'"insns":\[\{"code":32,"jt":0,"jf":0,"k":4294963248\}', text)
    assert first is not None
    mutated = text[:first.start()] + '"insns":[{"code":48,"jt":0,"jf":0,"k":14}' + text[first.end():]
    found, problems = _read(mutated)
    assert any("a cBPF filter whose verdict depends on more than the 802.1Q tag" in p for p in problems), problems
    assert found.interfaces[0].classify_pcp[0] == ("1:10", 1)  # to HTB's default class, as unmatched frames go


def _with_actions(batch: str) -> str:
    """What a kernel with act_mpls and skbedit shows for `batch`: this kernel's dump of the batch without its
    actions, the actions put back into each filter's JSON as iproute2 6.1 prints them (the module doc)."""
    actions: dict[tuple[str, int, str], list[list[dict[str, object]]]] = {}
    for line in batch.splitlines():
        head, *acts = line.split(" action ")
        m = re.search(r"protocol (\S+) prio (\d+) \S+ .* flowid (\S+)$", head)
        if m is None or not acts:
            continue
        printed: list[dict[str, object]] = []
        for order, act in enumerate(acts, start=1):
            w = act.split()
            body = ({"mpls_action": "modify", "tc": int(w[3])} if w[0] == "mpls" else
                    {"priority": f":{int(w[2][1:]):x}" if int(w[2][1:]) else "none"})
            printed.append({"order": order, "kind": w[0], **body, "control_action": {"type": "pipe"}, "index": 0,
                            "ref": 1, "bind": 1})
        actions.setdefault((m[1], int(m[2]), m[3]), []).append(printed)
    text = kernel.dump("".join(line.split(" action ")[0] + "\n" for line in batch.splitlines()))
    index = {"mpls": 0, "skbedit": 0}
    out, at, decoder = [], 0, json.JSONDecoder()
    while (start := text.find("[", at)) != -1:
        value, end = decoder.raw_decode(text, start)
        for f in value:
            o = f.get("options")
            if isinstance(o, dict) and "flowid" in o and actions.get((f["protocol"], f["pref"], o["flowid"])):
                o["actions"] = actions[(f["protocol"], f["pref"], o["flowid"])].pop(0)
                for a in o["actions"]:
                    index[str(a["kind"])] += 1
                    a["index"] = index[str(a["kind"])]
        out += [text[at:start], json.dumps(value, separators=(",", ":"))]
        at = end
    assert not any(actions.values()), actions
    return "".join(out) + text[at:]


def _dump(policy: Path) -> str:
    """data/marks-eth0.dump: eth0's batch as a kernel with the actions shows it, and its VLAN device's link."""
    result = api.validate(policy)
    batch = next(o.text for o in api.compile_policy(result, ["linux-tc"], ["lx"]) if o.path.endswith("eth0.tc"))
    link = {"ifindex": 7, "link": "eth0", "ifname": "eth0", "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
            "mtu": 1500, "qdisc": "htb", "operstate": "UP", "linkmode": "DEFAULT", "group": "default",
            "txqlen": 1000, "link_type": "ether", "address": "02:00:00:00:00:01", "broadcast": "ff:ff:ff:ff:ff:ff",
            "promiscuity": 0, "min_mtu": 0, "max_mtu": 65535,
            "linkinfo": {"info_kind": "vlan", "info_data": {
                "protocol": "802.1Q", "id": 100, "flags": ["REORDER_HDR"],
                "ingress_qos": [{"from": p, "to": 0} for p in range(8)],
                "egress_qos": [{"from": p, "to": p} for p in (1, 2, 3, 5, 6)]}}}
    return _with_actions(batch) + json.dumps([link], separators=(",", ":")) + "\n"


def test_the_stored_dump_is_what_this_kernel_shows() -> None:
    need_netns()
    assert _dump(POLICY) == DUMP.read_text()


LOADABLE = """\
qosc: 1
name: marks-live
""" + marking_services() + """\
devices:
  lx:
    platform: linux
    interfaces:
      eth0: {role: core, speed: 1G, encapsulation: [mpls, vlan], rewrite: [dscp]}
      eth1: {role: core, speed: 1G, encapsulation: vlan, rewrite: []}
"""


def test_import_of_the_kernels_own_dump_gives_back_each_domain(tmp_path: Path) -> None:
    """A batch this kernel loads whole (EXP and PCP classified, nothing rewritten) loaded in a scratch namespace,
    its `tc -j` dump read, lifted to a policy, compiled and loaded again: the same behaviour, EXP and PCP value by
    value, and what the policy asks."""
    need_netns()
    policy = valid(write_policy(tmp_path, LOADABLE))
    for suffix in ("/eth0.tc", "/eth1.tc"):
        rt = round_trip(policy, "lx", suffix, tmp_path, lambda o: (kernel.dump(o.text), o.path[:-3] + ".json"))
        assert rt.ok, (rt.stage, [f.message for f in rt.findings], [str(d) for d in rt.diagnostics])
        assert rt.second is not None and rt.first.behaviour is not None and rt.second.behaviour is not None
        first, second = rt.first.behaviour.interfaces[0], rt.second.behaviour.interfaces[0]
        same = dict(zip(first.classify[0], second.classify[0], strict=True))  # the lifted policy renames classes
        assert len(set(same.values())) == len(same)
        for a, b in ((first.classify_exp, second.classify_exp), (first.classify_pcp, second.classify_pcp)):
            assert [(same[x[0]], x[1]) if x else None for x in a] == list(b)
        assert any(first.classify_pcp) and any(first.classify_exp) == (suffix == "/eth0.tc")
        iface = policy.device_map["lx"].interfaces[0 if suffix == "/eth0.tc" else 1]
        want = intent.interface(policy, iface)
        assert [f.message for f in compare(Device("lx", interfaces=(want,)), rt.first.behaviour)] == []


@pytest.mark.parametrize("encapsulation", ["[mpls, vlan]", "vlan"])
def test_import_gives_back_what_each_class_writes(encapsulation: str, tmp_path: Path) -> None:
    """data/marks.yaml (EXP and PCP classified and rewritten; or its interface a VLAN trunk only, which tries the
    PCP filters first, as examples/mpls-backbone.yaml's ce-linux eth1) through import as a kernel with act_mpls
    and skbedit shows it: the lifted policy compiles to the same behaviour, the marks value by value."""
    need_netns()
    policy = valid(write_policy(tmp_path, POLICY.read_text().replace("[mpls, vlan]", encapsulation)))
    rt = round_trip(policy, "lx", "/eth0.tc", tmp_path, lambda o: (_with_actions(o.text), o.path[:-3] + ".json"))
    assert rt.ok, (rt.stage, [f.message for f in rt.findings], [str(d) for d in rt.diagnostics])
    assert rt.first.behaviour is not None and rt.second is not None and rt.second.behaviour is not None
    first, second = rt.first.behaviour.interfaces[0], rt.second.behaviour.interfaces[0]
    same = dict(zip(first.classify[0], second.classify[0], strict=True))
    assert sorted((d, same[c], p, v) for d, c, p, v in first.marks) == sorted(second.marks)
    assert {d for d, *_ in first.marks} == ({"exp", "pcp"} if "mpls" in encapsulation else {"pcp"})


def test_the_marking_filters_are_lifted_in_the_reconciliation() -> None:
    """The reader's inventory (Device.seen, Device.uses: import's QOS202 reconciliation) counts the EXP (u32 on
    mpls_uc) and PCP (cls_bpf) filters read.marks reads as lifted by the interface, not as unread filters the DSCP
    classification refuses (QOS172 'not IP', 'not u32'), which the merge of the reconciliation and the marking
    domains would otherwise make of them."""
    found, problems = _read(DUMP.read_text())
    assert not [p for p in problems if p.startswith("QOS172")]
    filters = {obj for kind, obj, _ in found.seen if kind == "filter"}
    used = {obj for element, (kind, obj) in found.uses if kind == "filter" and element[0] == "interface"}
    unread = {obj for element, (kind, obj) in found.uses if kind == "filter" and element[0] == "unread"}
    text = DUMP.read_text()
    assert '"protocol":"mpls_uc"' in text and '"kind":"bpf"' in text  # both kinds are in the dump
    assert filters and filters == used and not unread

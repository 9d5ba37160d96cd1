"""Linux tc reader: dumps of compiled tc batches read back as the policy; mutations and flaws are found.

data/four-service-eth0.dump is `tc -j qdisc/class/filter show dev v0` (iproute2 6.1, Linux 6.x) after
`tc -batch` of the linux-tc output of policies/four-service-linux.yaml (dev renamed to a veth) in a scratch
network namespace; test_live_dump_round_trip does it again where network namespaces can be made.
data/hand-htb.tc is a hand-written HTB tree (tests/test_lab.py measures its shares with real traffic too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc.behaviour.model import Device
from qosc.behaviour.roundtrip import drift, load, outputs
from qosc.errors import InputError
from qosc.targets.linux_tc import read as linux_tc
from qosc.targets.linux_tc.read import kernel

DATA = Path(__file__).parent / "data"


def read(text: str, source: str = "eth0.dump") -> Device:
    return linux_tc.interpret(linux_tc.parse(text, source, None), None)[0]


def test_dump_of_compiled_batch_reads_back_as_the_policy() -> None:
    text = (DATA / "four-service-eth0.dump").read_text()
    assert linux_tc.sniff(text) == "json"
    found = read(text, "eth0.dump")
    assert drift(load("four-service-linux.yaml"), "lab-router", found) == []
    assert found.interfaces[0].rate == 100_000_000


def test_changed_rate_and_filter_are_found() -> None:
    text = (DATA / "four-service-eth0.dump").read_text()
    mutated = text.replace("rate 1Mbit ceil 100Mbit", "rate 3Mbit ceil 100Mbit")
    mutated = mutated.replace('"value":"200000"', '"value":"0"', 1)  # the IPv4 cs1 filter now matches DSCP 0
    assert mutated.count("rate 3Mbit") == 1 and mutated.count('"value":"0"') == text.count('"value":"0"') + 1
    found = drift(load("four-service-linux.yaml"), "lab-router", read(mutated))
    assert sorted((f.subject, f.what, f.expected, f.found) for f in found) == [
        ("DSCP 8 (cs1)", "classified to", "lbe", "best-effort"), ("lbe", "share", "1%", "3%")]


HAND = """\
[{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10,"default":"0x30"}},
 {"kind":"red","handle":"20:","parent":"1:20","options":{"limit":400000,"min":60000,"max":180000,"probability":0.1}}]
[{"class":"htb","handle":"1:1","root":true,"rate":125000000,"ceil":125000000,"prio":0},
 {"class":"htb","handle":"1:2","parent":"1:1","rate":62500000,"ceil":125000000,"prio":2},
 {"class":"htb","handle":"1:20","parent":"1:2","rate":25000000,"ceil":62500000,"prio":1},
 {"class":"htb","handle":"1:21","parent":"1:2","rate":37500000,"ceil":125000000,"prio":3},
 {"class":"htb","handle":"1:30","parent":"1:1","rate":62500000,"ceil":125000000,"prio":5}]
[{"parent":"1:","protocol":"all","pref":5,"kind":"u32","options":{"fh":"800::800","order":2048,"flowid":"1:20",
  "match":{"value":"200000","mask":"e00000","offmask":"","off":0}}},
 {"parent":"1:","protocol":"ip","pref":3,"kind":"u32","options":{"fh":"801::800","order":2048,"flowid":"1:21",
  "match":{"value":"280000","mask":"fc0000","offmask":"","off":0}}},
 {"parent":"1:","protocol":"ip","pref":9,"kind":"u32","options":{"fh":"802::800","order":2048,"flowid":"1:99",
  "match":{"value":"0","mask":"fc0000","offmask":"","off":0}}}]
"""


def test_hand_written_tree_with_borrowing_prio_red_and_json_classes() -> None:
    device, diagnostics = linux_tc.interpret(linux_tc.parse(HAND, "gw/eth3.json", None), None)
    iface = device.interfaces[0]
    assert (iface.name, iface.rate) == ("eth3", 1_000_000_000)
    by = {c.name: c for c in iface.classes}
    assert set(by) == {"1:20", "1:21", "1:30"}  # 1:2 is an inner class
    assert (by["1:20"].share, by["1:20"].ceiling, by["1:20"].priority) == (20.0, 50.0, 6)
    assert by["1:21"].ceiling is None and by["1:21"].priority == 4
    red = by["1:20"].curve(1)
    assert red is not None and red.points == ((15.0, 0.0), (45.0, 10.0))
    v4, v6 = iface.classify
    # pref 3 (IPv4 af11: tos 0x28) before pref 5 (precedence 1); the rest to the default class 1:30; protocol
    # all applies the IPv4 offsets to IPv6 headers too, where they are not the traffic class
    assert (v4[10], v4[8], v4[14], v4[40], v4[0]) == ("1:21", "1:20", "1:20", "1:30", "1:30")
    assert (v6[10], v6[8]) == ("1:30", "1:30")
    # the dump does not name its interface: it is the file's (said, QOS204)
    assert [(d.code, d.location.line if d.location else 0) for d in diagnostics] == [("QOS204", 1), ("QOS174", 12)]


def test_broken_json_is_located() -> None:
    with pytest.raises(InputError) as caught:
        linux_tc.parse('[{"kind": "htb",\n "handle": }]\n', "bad.json", None)
    d = caught.value.diagnostics[0]
    assert d.code == "QOS179" and d.location is not None and d.location.line == 2


@pytest.mark.skipif(kernel.available() is not None, reason=f"scratch network namespace: {kernel.available()}")
def test_live_dump_round_trip() -> None:
    pol = load("four-service-linux.yaml")
    batch = next(o.text for o in outputs(pol, "lab-router") if o.path.endswith(".tc"))
    try:
        dump = kernel.dump(batch)
    except kernel.NoKernel as exc:
        pytest.skip(str(exc))
    assert drift(pol, "lab-router", read(dump, "eth0.dump")) == []


HAND_BATCH = (DATA / "hand-htb.tc").read_text()


@pytest.mark.skipif(kernel.available() is not None, reason=f"scratch network namespace: {kernel.available()}")
def test_hand_written_tree_imports_recompiles_and_loads_as_the_same_tree(tmp_path: Path) -> None:
    """A hand-written HTB tree (a capped prio-0 class, borrowing with ceilings, LBE at prio 7, IPv4 and IPv6
    filters) loaded in a namespace and dumped, imported, compiled by qosc and loaded again: the same tree."""
    from qosc.behaviour import readback
    from qosc.behaviour.roundtrip import relift
    try:
        first = readback.read(kernel.dump(HAND_BATCH), "lab/eth0.json", "linux", "lab")
    except kernel.NoKernel as exc:
        pytest.skip(str(exc))
    assert first.behaviour is not None, first.diagnostics
    _, checked = relift(first.behaviour, "hand", tmp_path / "hand.yaml")
    assert checked.policy is not None and not [str(d) for d in checked.diagnostics if d.is_error]
    batch = next(o.text for o in outputs(checked.policy, "lab") if o.path.endswith(".tc"))
    second = readback.read(kernel.dump(batch), "lab/eth0.json", "linux", "lab")
    findings, problems = readback.equiv(first, second)
    assert [f.message for f in findings] == [] and problems == []
    classes = {round(c.share or 0): c for c in first.behaviour.interfaces[0].classes}
    assert classes[20].strict and classes[19].ceiling == 50.0 and classes[1].priority == 0
    # the queues too (they were dropped on import): a byte fifo is imported as a time at the class's guarantee,
    # and the recompiled fifo holds the same bytes within rounding
    from qosc.behaviour.compare import ALL_UNITS, compare
    assert second.behaviour is not None and [i.name for i in second.behaviour.interfaces] == ["eth0"]
    assert not [f.message for f in compare(first.behaviour, second.behaviour, None, ALL_UNITS)]
    sizes = {c.buffer for c in first.behaviour.interfaces[0].classes}
    assert any(b is not None and b[0] == "bytes" for b in sizes), sizes


def test_one_dump_of_several_interfaces() -> None:
    """What verify --from-device reads from a Linux device: `## dev NAME` before each interface's tc -j output.
    One device with both interfaces (stale HTB classes named with theirs), located lines, and sniffed as Linux
    tc for `qosc import` without --platform."""
    from qosc.behaviour import readback
    from qosc.targets.linux_tc.read import sniff

    one = (Path(__file__).parent / "data" / "four-service-eth0.dump").read_text(encoding="utf-8")
    text = f"## dev eth0\n{one}\n## dev eth1\n{one}"
    assert sniff(text) == "json"
    read = readback.read(text, "lab-router (running)", "linux", "lab-router")
    assert read.behaviour is not None, read.diagnostics
    assert [i.name for i in read.behaviour.interfaces] == ["eth0", "eth1"]
    eth0, eth1 = read.behaviour.interfaces
    assert eth0.classes == eth1.classes and eth0.classify == eth1.classify and eth0.rate == 100_000_000
    owned = {name for kind, name, _ in read.behaviour.owned if kind == "htb class"}
    assert {"eth0 1:10", "eth1 1:10"} <= owned
    lines = text.splitlines()
    assert eth1.origin is not None and lines[eth1.origin.line - 1].startswith("[{\"kind\":\"htb\"")
    assert eth1.origin.line > len(one.splitlines())

"""Issue 26 on Cisco: diagnostics that misled.  QOS121 for a shape rate above the maximum hinted at the minimum;
QOS138 blamed a whole-number share for the fractional one that forces the ratio form; `unit:` was refused on
ios-gsr (QOS090) while the same sub-interface written in the name (POS0/0.1) compiled."""

from __future__ import annotations

from pathlib import Path

from qosc import api

POLICY = """\
qosc: 1
name: x
services:
  be: {kind: best-effort, default: true, queue: {share: SHARE_BE, priority: high}}
  af: {kind: assured, dscp: [af21], queue: {share: SHARE_AF, priority: highCAP}}
  lbe: {kind: lbe, dscp: [cs1], queue: {share: SHARE_LBE, priority: low}}
devices:
  r1:
    platform: PLATFORM
    interfaces:
      IFACE: {role: core, speed: SPEEDMORE}
"""


def _validate(tmp_path: Path, **values: str) -> tuple[str, api.Result]:
    text = POLICY
    defaults = {"SHARE_BE": "40%", "SHARE_AF": "30%", "SHARE_LBE": "1%", "CAP": "", "PLATFORM": "ios-xe",
                "IFACE": "HundredGigE0/0/0", "SPEED": "100G", "MORE": ""}
    for key, value in {**defaults, **values}.items():
        text = text.replace(key, value)
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    return text, api.validate(path)


def _line(text: str, needle: str) -> int:
    return next(n for n, row in enumerate(text.splitlines(), 1) if needle in row)


def test_qos121_above_the_shape_maximum_hints_at_the_maximum(tmp_path: Path) -> None:
    text, result = _validate(tmp_path, CAP=", ceiling: 50%", SPEED="400G", IFACE="FourHundredGigE0/0/0")
    [d] = [d for d in result.diagnostics if d.code == "QOS121"]
    assert d.location is not None and d.location.line == _line(text, "ceiling: 50%")
    assert d.message == ("service 'af' ceiling on FourHundredGigE0/0/0 is shaped at 200000000000 bit/s, outside the "
                         "`shape average` range 8000..100000000000 bit/s of ios-xe")
    assert d.hint == "give a rate of at most 100000000000 bit/s (100G), or no ceiling to leave the class unshaped"
    _, shaped = _validate(tmp_path, SPEED="400G", IFACE="FourHundredGigE0/0/0", MORE=", shape: 200G")
    [d] = [d for d in shaped.diagnostics if d.code == "QOS121"]
    assert d.hint == "give a rate of at most 100000000000 bit/s (100G), or no shape: to leave the interface unshaped"
    _, low = _validate(tmp_path, CAP=", ceiling: 5000", SPEED="1G", IFACE="GigabitEthernet0/0/1", SHARE_AF="10%")
    [d] = [d for d in low.diagnostics if d.code == "QOS121"]
    assert d.hint == "give a rate of at least 8000 bit/s (8k)"


def test_qos138_names_the_fractional_share_that_forces_ratios(tmp_path: Path) -> None:
    """30% of 10G is above the 2,000,000 kbit/s `bandwidth`, which rules out kbit/s; the ratio form comes from lbe's
    0.5%, which `bandwidth percent` cannot write.  The warning blamed af's 30%."""
    text, result = _validate(tmp_path, SHARE_LBE="0.5%", SPEED="10G", IFACE="TenGigabitEthernet0/0/0")
    [d] = [d for d in result.diagnostics if d.code == "QOS138"]
    assert d.location is not None and d.location.line == _line(text, "share: 0.5%")
    assert d.message == (
        "shares on r1:TenGigabitEthernet0/0/0 are written as `bandwidth remaining ratio` (service 'lbe' share 0.5% is "
        "not a whole percentage, which `bandwidth percent` needs, and service 'af' share 30% is 3000000 kbit/s, "
        "above the 2000000 kbit/s `bandwidth` of ios-xe); ios-xe divides all 100% the strict classes leave by ratio, "
        "so the shares (70.5% together) are each guaranteed 1.418 times over")
    assert d.hint == "let the shares of the interface add up to 100%, or give 'lbe' a whole-percent share"


SUBINTERFACE = ("r1:POS0/0.1 is a sub-interface, but ios-gsr attaches its output policy (bandwidth, priority, "
                "WRED: queueing) to it directly, and IOS queues on a sub-interface only under a shaper "
                "(`CBWFQ : Not supported on subinterfaces`, Cisco tech note 10104), which qosc does not write on "
                "ios-gsr")
SUBINTERFACE_HINT = "apply the policy to the main interface POS0/0"


def test_ios_gsr_sub_interface_is_refused_alike_as_unit_or_in_the_name(tmp_path: Path) -> None:
    text, named = _validate(tmp_path, PLATFORM="ios-gsr", IFACE="POS0/0.1", SPEED="2.5G")
    [d] = [d for d in named.diagnostics if d.is_error]
    assert (d.code, d.message, d.hint) == ("QOS186", SUBINTERFACE, SUBINTERFACE_HINT)
    assert d.location is not None and d.location.line == _line(text, "POS0/0.1")
    text, unit = _validate(tmp_path, PLATFORM="ios-gsr", IFACE="POS0/0", SPEED="2.5G", MORE=", unit: 1")
    [d] = [d for d in unit.diagnostics if d.is_error]  # no QOS090: the field is understood, the place refused
    assert (d.code, d.message, d.hint) == ("QOS186", SUBINTERFACE, SUBINTERFACE_HINT)
    assert d.location is not None and (d.location.line, d.location.column) == (
        _line(text, "unit: 1"), text.splitlines()[_line(text, "unit: 1") - 1].index("unit: 1") + 7)
    _, main = _validate(tmp_path, PLATFORM="ios-gsr", IFACE="POS0/0", SPEED="2.5G", MORE=", unit: 0")
    assert main.ok, [str(d) for d in main.diagnostics if d.is_error]
    assert "interface POS0/0\n" in next(o.text for o in api.compile_policy(main) if o.path.endswith("r1.cfg"))

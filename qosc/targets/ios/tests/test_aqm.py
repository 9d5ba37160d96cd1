"""queue.aqm and caps of bandwidth classes on Cisco.  aqm: red runs the service's WRED, none is tail drop even
with a drop profile (it used to get WRED regardless: the field was claimed and ignored), codel is refused at its
line (QOS139); a rate-cap or ceiling on a bandwidth class is refused (QOS191)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosc import api
from qosc.behaviour import readback

POLICY = """\
qosc: 1
name: a
drop-profiles:
  be: {{min: 20, max: 80, max-probability: 10%}}
services:
  be: {{kind: best-effort, default: true, queue: {{share: 60%, priority: high}}, drop-profile: be}}
  af: {{kind: assured, dscp: [af21], queue: {{share: 30%, priority: high{aqm}}}, drop-profile: be}}
devices:
  r1:
    platform: {platform}
    interfaces:
      {iface}: {{role: core, speed: 1G{port}}}
"""
CASES = [("ios-xe", "GigabitEthernet0/0/1", ""), ("ios-gsr", "POS0/0", ""),
         ("catalyst6500", "GigabitEthernet1/1", ", port-type: 1p2q2t")]


def _compile(tmp_path: Path, platform: str, iface: str, port: str, aqm: str) -> tuple[Path, api.Result, str]:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY.format(platform=platform, iface=iface, port=port, aqm=aqm), encoding="utf-8")
    result = api.validate(path)
    if not result.ok:
        return path, result, ""
    return path, result, next(o.text for o in api.compile_policy(result) if o.path.endswith("r1.cfg"))


@pytest.mark.parametrize(("platform", "iface", "port"), CASES)
def test_aqm_none_is_tail_drop_and_red_is_wred(tmp_path: Path, platform: str, iface: str, port: str) -> None:
    _, _, red = _compile(tmp_path, platform, iface, port, "")
    path, _, none = _compile(tmp_path, platform, iface, port, ", aqm: none")
    assert "random-detect" in red
    wred = [ln for ln in none.splitlines() if "random-detect" in ln and not ln.strip().startswith("!")]
    if platform == "catalyst6500":  # be keeps its WRED thresholds; af's queue has them at 100% (tail drop)
        assert " wrr-queue random-detect max-threshold 2 80 80" in red.splitlines()
        assert " wrr-queue random-detect max-threshold 2 100 100" in wred
    else:  # only be's class keeps WRED
        assert len(wred) < len([ln for ln in red.splitlines() if "random-detect" in ln and
                                not ln.strip().startswith("!")])
    (tmp_path / "r1.cfg").write_text(none, encoding="utf-8")
    found = readback.verify(str(path), {"r1": str(tmp_path / "r1.cfg")}).findings
    assert not [f for f in found if f.subject == "af" and "drop" in f.what], found


@pytest.mark.parametrize(("platform", "iface", "port"), CASES)
def test_aqm_codel_is_refused_at_its_line(tmp_path: Path, platform: str, iface: str, port: str) -> None:
    _, result, text = _compile(tmp_path, platform, iface, port, ", aqm: codel")
    errors = [d for d in result.diagnostics if d.code == "QOS139"]
    assert errors and not text, [str(d) for d in result.diagnostics]
    assert errors[0].location is not None and errors[0].location.line == 7  # af's queue, at its aqm key


@pytest.mark.parametrize(("platform", "iface", "port"), CASES)
@pytest.mark.parametrize(("cap", "refused"), [(", rate-cap: 40%", True), (", ceiling: 50%", True),
                                               (", ceiling: 100%", False)])
def test_a_cap_on_a_bandwidth_class_is_shaped_or_refused_not_dropped(tmp_path: Path, platform: str, iface: str,
                                                                     port: str, cap: str, refused: bool) -> None:
    """A rate-cap or a ceiling below 100% on a bandwidth class used to be dropped without a word.  IOS XE shapes
    the class (`shape average` beside `bandwidth`), read back as its ceiling and verified; classic IOS and the
    PFC cap only priority classes: QOS191 at the field."""
    path, result, text = _compile(tmp_path, platform, iface, port, cap)
    errors = [d for d in result.diagnostics if d.code == "QOS191"]
    if not refused:
        assert not errors and text and "shape average" not in text
        return
    if platform == "ios-xe":
        bps = 400_000_000 if "rate-cap" in cap else 500_000_000  # of the 1G link
        assert not errors and " class af\n" in text and f"  shape average {bps}\n" in text, text
        (tmp_path / "r1.cfg").write_text(text, encoding="utf-8")
        assert not readback.verify(str(path), {"r1": str(tmp_path / "r1.cfg")}).findings
        drifted = text.replace(f"shape average {bps}", f"shape average {bps + 100_000_000}")
        (tmp_path / "r1.cfg").write_text(drifted, encoding="utf-8")
        (finding,) = readback.verify(str(path), {"r1": str(tmp_path / "r1.cfg")}).findings
        assert finding.subject == "af" and finding.what in ("ceiling", "rate cap"), finding
        return
    assert errors and not text and errors[0].location is not None and errors[0].location.line == 7


RAMP = POLICY.replace("be: {{min: 20, max: 80, max-probability: 10%}}", "be: {profile}")


@pytest.mark.parametrize(("platform", "iface", "port"), CASES)
@pytest.mark.parametrize(("profile", "exact"), [
    ("{min: 20, max: 80, max-probability: 10%}", {"ios-xe", "ios-gsr"}),  # the PFC cannot set 10%
    ("{min: 20, max: 80, max-probability: 100%}", {"ios-xe", "ios-gsr", "catalyst6500"}),
    ("{points: [[20, 0], [80, 100]], interpolate: true}", {"ios-xe", "ios-gsr", "catalyst6500"}),  # the same ramp
    ("{points: [[20, 0], [80, 100]]}", set()),  # a step curve: nothing until 80%, then everything
    ("{points: [[20, 5], [50, 20], [80, 100]], interpolate: true}", set()),  # two slopes
])
def test_drop_curve_the_box_cannot_run_is_said(tmp_path: Path, platform: str, iface: str, port: str, profile: str,
                                                exact: set[str]) -> None:
    """interpolate and (on the PFC) max-probability were claimed and silently approximated by one WRED ramp:
    QOS183 at the profile when the ramp the box runs differs from the policy's curve, none when it is the same."""
    path = tmp_path / "p.yaml"
    path.write_text(RAMP.format(profile=profile, platform=platform, iface=iface, port=port, aqm=""),
                    encoding="utf-8")
    result = api.validate(path)
    assert result.ok, result.diagnostics
    api.compile_policy(result)
    found = [d for d in result.diagnostics if d.code == "QOS183"]
    if platform in exact:
        assert not found, found
    else:
        (d,) = found  # once per profile, though two services use it
        assert d.location is not None and d.location.line == 4
        assert f"ramp {platform} runs: 0% at 20% fill" in d.message
        assert ("a step curve" in d.message) == ("interpolate" not in profile and "points" in profile)


@pytest.mark.parametrize("platform", ["ios-xe", "ios-gsr"])
def test_priority_between_bandwidth_classes_is_said(tmp_path: Path, platform: str) -> None:
    """queue.priority was claimed by ios-mqc and dropped: CBWFQ has one priority, the strict class. A bandwidth
    class below another's priority gets QOS184 at its priority; equal priorities and strict classes get none."""
    iface = "POS0/0" if platform == "ios-gsr" else "GigabitEthernet0/0/1"
    text = f"""\
qosc: 1
name: p
services:
  be: {{kind: best-effort, default: true, queue: {{share: 60%, priority: high}}}}
  ef: {{kind: premium, dscp: [ef], queue: {{share: 10%, priority: low, strict: true, rate-cap: 10%}}}}
  af: {{kind: assured, dscp: [af21], queue: {{share: 20%, priority: high}}}}
  lbe: {{kind: lbe, dscp: [cs1], queue: {{share: 1%, priority: low}}}}
devices:
  r1:
    platform: {platform}
    interfaces:
      {iface}: {{role: core, speed: 1G}}
"""
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    result = api.validate(path)
    assert result.ok, result.diagnostics
    api.compile_policy(result)
    (d,) = [d for d in result.diagnostics if d.code == "QOS184"]
    assert "'lbe' has priority low, below 'be' (high)" in d.message and platform in d.message
    assert d.location is not None and d.location.line == 7
    # without lbe: be and af alike, ef (low) strict
    path.write_text("".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("  lbe:")),
                    encoding="utf-8")
    result = api.validate(path)
    assert result.ok, result.diagnostics
    api.compile_policy(result)
    assert not [d for d in result.diagnostics if d.code == "QOS184"]
    assert any(o.path.endswith("r1.cfg") for o in api.compile_policy(result))

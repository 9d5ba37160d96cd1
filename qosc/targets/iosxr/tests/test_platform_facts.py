"""IOS XR platform facts against the Cisco texts qosc's authors could read.

- ASR 9000 (Modular QoS Configuration Guide, IOS XR 7.6.x, WRED restrictions): 'Only two minimum and maximum
  thresholds (each with different match criteria) can be configured per class': a service with a drop profile per
  AF precedence gets two random-detect profiles, its highest precedences sharing one (QOS251).
- Cisco 8000: WRED by discard-class 0 and 1 (unverified: the nearest text read, the NCS 5500/540 command
  reference, takes 'The value is 0 or 1'); no discard-class 2 is written.
- Facts no text confirms are listed in the platform's `unverified`; a device whose output relies on one says so
  (QOS250 and a header line naming the value and what it is inferred from); the README's IOS XR section lists them.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from qosc import pipeline
from qosc.diagnostics import Diagnostic
from qosc.model import Policy
from qosc.targets.iosxr.tests.test_iosxr import ROOT, XR, cli, moved
from qosc.targets.platform import PlatformDataError, load_platforms


def _classes(text: str, policy_map: str) -> dict[str, str]:
    body = text.split(f"policy-map {policy_map}\n")[1].split(" end-policy-map")[0]
    return {b.split("\n", 1)[0]: b for b in body.split("\n class ")[1:]}


def _diagnostics(policy: Policy, device: str) -> list[Diagnostic]:
    found, _ = pipeline.lower(XR, policy, policy.device_map[device])
    return list(found)


def test_asr9k_class_takes_two_wred_profiles_its_highest_precedences_share_one(tmp_path: Path) -> None:
    policy = moved("assured-rate", "iosxr-asr9k", tmp_path)
    text = cli(policy, "edge-mx")
    for name, body in _classes(text, "assured-rate-out").items():
        profiles = [line for line in body.splitlines() if line.strip().startswith("random-detect")
                    and "ecn" not in line]
        assert len(profiles) <= 2, (name, profiles)
    assured = _classes(text, "assured-rate-out")["assured"]
    assert "random-detect dscp af21 24 ms 38 ms" in assured  # af-low, drop precedence 1, as the policy asks
    assert "random-detect dscp af22,af23 16 ms 32 ms" in assured  # af-medium for precedences 2 and 3
    said = [d for d in _diagnostics(policy, "edge-mx") if d.code == "QOS251"]
    assert said and said[0].severity.value == "info" and "'assured'" in said[0].message, said


def test_cisco_8000_writes_discard_class_0_and_1_only(tmp_path: Path) -> None:
    text = cli(moved("assured-rate", "iosxr-8000", tmp_path), "edge-mx")
    assert re.findall(r"discard-class (\d+)", text), text
    assert set(re.findall(r"discard-class (\d+)", text)) <= {"0", "1"}
    assured = next(b for n, b in _classes(text, "assured-rate-out").items() if "random-detect" in b and "af" in b)
    assert "random-detect discard-class 0 " in assured and "random-detect discard-class 1 " in assured
    assert "set dscp af23" in text  # the policer's violate colour still marks af23, into discard-class 1


def test_output_says_which_unverified_platform_values_it_relies_on(tmp_path: Path) -> None:
    c8k = moved("assured-rate", "iosxr-8000", tmp_path)
    text = cli(c8k, "edge-mx")
    header = [line for line in text.splitlines() if line.startswith("!! ")]
    assert any(line.startswith("!! assumed") for line in header), header
    assert any("bandwidth remaining ratio 1..255" in line for line in header), header
    assert any("NCS 5500" in line for line in header), header  # what it is inferred from
    said = [d for d in _diagnostics(c8k, "edge-mx") if d.code == "QOS250"]
    assert len(said) == 1 and said[0].severity.value == "info" and "remaining_ratio" in said[0].message, said
    asr = moved("assured-rate", "iosxr-asr9k", tmp_path)  # its one unverified value, the ratio, is never written
    assert "!! assumed" not in cli(asr, "edge-mx")
    assert not [d for d in _diagnostics(asr, "edge-mx") if d.code == "QOS250"]


def test_every_unverified_fact_is_listed_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Cisco IOS XR")[1].split("\n## ")[0]
    for platform in XR.platform_data.values():
        assert platform.unverified, platform.name
        for fact in platform.unverified:
            assert f"`{fact}`" in section, (platform.name, fact)


def test_platform_file_whose_unverified_names_no_fact_is_refused(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "xrfacts"
    (package / "platforms").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    data = json.loads((ROOT / "qosc/targets/iosxr/platforms/iosxr-8000.json").read_text(encoding="utf-8"))
    data["unverified"] = {"remaining_ratios": "a typo"}
    (package / "platforms" / "iosxr-8000.json").write_text(json.dumps(data))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("xrfacts", None)
    with pytest.raises(PlatformDataError, match="remaining_ratios name no fact"):
        load_platforms(XR.platform_class, "xrfacts")

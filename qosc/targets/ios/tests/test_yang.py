"""The IOS XE grammar's value ranges are the ones Cisco's published YANG gives (issue 15).

qosc/targets/ios/yang/ios-xe-<release>.json are derived by scripts/derive-ios-xe-ranges from
Cisco-IOS-XE-policy/-types/-acl of YangModels/yang (vendor/cisco/xe/16111 and 1761); they hold only the facts
qosc checks, each with its module and revision.  The ios-xe command table names, per ranged placeholder, the
fact it comes from; its range must be the intersection over the releases the platform covers (a value one of
them refuses is refused), and so must the platform's typed numbers.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from qosc.targets.ios import table
from qosc.targets.ios.platform import MqcPlatform, get


def _xe() -> MqcPlatform:
    found = get("ios-xe")
    assert isinstance(found, MqcPlatform)
    return found


XE = _xe()
RELEASES: list[str] = list(XE.commands["yang"])


def derived(release: str) -> dict[str, Any]:
    text = resources.files("qosc.targets.ios").joinpath("yang", f"ios-xe-{release}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def common(fact: str) -> tuple[int, int]:
    """The range every release accepts (a fact is one integer range per release), within the range Cisco's guides
    document where the derived fact carries a narrower one (`documented`: what both accept)."""
    lows, highs = [], []
    for release in RELEASES:
        found = derived(release)["facts"][fact]
        for kind in ("type", "documented"):
            given = found.get(kind, {})
            # a union (police actions: 0..7 or an enhanced-marking keyword) gives the range of its integer member
            for member in [given, *given.get("union", [])]:
                for (low, high) in member.get("int", []):
                    lows.append(low)
                    highs.append(high)
    return max(lows), min(highs)


def test_derived_facts_name_their_module_and_revision() -> None:
    assert RELEASES == ["16.11.1", "17.6.1"]
    for release in RELEASES:
        data = derived(release)
        assert data["release"] == release and data["source"].startswith("YangModels/yang vendor/cisco/xe/")
        assert set(data["modules"]) == {"Cisco-IOS-XE-policy", "Cisco-IOS-XE-types", "Cisco-IOS-XE-acl",
                                        "Cisco-IOS-XE-interfaces"}
        assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", rev) for rev in data["modules"].values())
        assert all(f["module"] in data["modules"] for f in data["facts"].values())
    # release-keyed: 16.11 documents kbit/s up to 2,000,000, 17.6 up to 100,000,000
    assert derived("16.11.1")["facts"]["bandwidth kbps"]["type"]["int"] == [[8, 2_000_000]]
    assert derived("17.6.1")["facts"]["bandwidth kbps"]["type"]["int"] == [[1, 100_000_000]]


def ranged(entry: dict[str, Any]) -> list[tuple[int, int]]:
    return [(int(m[4]), int(m[5])) for m in table.PLACEHOLDER.finditer(entry["pattern"]) if m[4]]


ENTRIES = [e for entries in XE.commands["modes"].values() for e in entries if "yang" in e]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["syntax"] for e in ENTRIES])
def test_xe_grammar_ranges_are_the_yang_ranges(entry: dict[str, Any]) -> None:
    got = ranged(entry)
    assert len(got) == len(entry["yang"])
    for (low, high), fact in zip(got, entry["yang"], strict=True):
        assert (low, high) == common(fact), (entry["syntax"], fact)
    assert entry["source"] in table.table_data("ios-xe")["sources"]


def test_xe_platform_numbers_are_the_yang_ranges() -> None:
    assert (XE.policer_rate.low, XE.policer_rate.high) == common("police cir bps")
    assert (XE.policer_burst.low, XE.policer_burst.high) == common("police bc bytes")
    assert XE.queue.limit_max == common("queue-limit")[1]
    assert XE.queue.threshold_max == common("random-detect precedence max-threshold")[1]
    assert XE.kbps_max == common("bandwidth kbps")[1] == common("priority kbps")[1]


def test_every_ranged_xe_command_qosc_writes_has_its_yang_fact() -> None:
    """The policy-map class commands qosc writes with a number carry a YANG fact on ios-xe (none is left on
    the classic IOS ranges it inherits from ios-gsr)."""
    data = table.table_data("ios-xe")
    for entry in data["modes"]["policy-map-class"]:
        if ranged(entry):
            assert "yang" in entry, entry["syntax"]


def test_xe_keeps_max_reserved_bandwidth_on_interfaces_and_subinterfaces() -> None:
    """Issue 15: IOS XE has `max-reserved-bandwidth` (1..100) in interface-common-grouping of Cisco-IOS-XE-interfaces,
    which every interface list of the native model uses (a subinterface is an entry of its port's list), in both
    releases: the XE grammar takes it from the YANG, on a subinterface too; classic IOS keeps its own source."""
    for release in RELEASES:
        fact = derived(release)["facts"]["max-reserved-bandwidth percent"]
        assert fact["module"] == "Cisco-IOS-XE-interfaces"
        assert fact["path"] == "interface-common-grouping/max-reserved-bandwidth"
        assert fact["type"]["int"] == [[1, 100]]
    (entry,) = [e for e in table.table_data("ios-xe")["modes"]["interface"] if e["syntax"].startswith("max-reserved")]
    assert entry["source"] == "xe-yang-if" and entry["yang"] == ["max-reserved-bandwidth percent"]
    (gsr,) = [e for e in table.table_data("ios-gsr")["modes"]["interface"] if e["syntax"].startswith("max-reserved")]
    assert gsr["source"] == "reserved"
    assert "Cisco-IOS-XE-interfaces" in XE.reservable.source


def _script() -> Any:
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[4] / "scripts" / "derive-ios-xe-ranges"
    spec = importlib.util.spec_from_loader("derive_ios_xe_ranges", importlib.machinery.SourceFileLoader(
        "derive_ios_xe_ranges", str(path)))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_documented_ranges_narrow_the_yang_with_their_source() -> None:
    """Issue 26: `bandwidth remaining ratio` is uint16 (16.11.1) or 1..65536 (17.6.1) in Cisco-IOS-XE-policy, but
    Cisco's guides document 1 to 1000: the derived facts carry that range and its source (the script's DOCUMENTED,
    re-applied by `--documented`), the grammar takes what both accept, and so does the platform's ratio maximum."""
    documented = _script().DOCUMENTED
    assert set(documented) == {"bandwidth remaining ratio"}
    for fact, (low, high, source) in documented.items():
        for release in RELEASES:
            found = derived(release)["facts"][fact]
            assert found["documented"] == {"int": [[low, high]], "source": source}
            ((ylow, yhigh),) = found["type"]["int"]
            assert ylow <= low and high < yhigh  # narrower than the YANG
        assert "1 to 1000" in source and "OL-7433-09" in source
    assert common("bandwidth remaining ratio") == (1, 1000)
    assert XE.remaining_ratio_max == 1000
    assert table.arg_range("ios-xe", "policy-map-class", "bandwidth remaining ratio", "integer") == (1, 1000)

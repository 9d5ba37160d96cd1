"""One test per semantic check, each showing the exact diagnostic a user sees."""

from __future__ import annotations

from pathlib import Path

from helpers import BASE, codes, texts, validate_text


def only(diags, code):
    found = [d for d in diags if d.code == code]
    assert found, f"expected {code}, got {codes(diags)}"
    return found


def test_base_policy_is_clean(tmp_path: Path) -> None:
    assert validate_text(tmp_path, BASE) == []


# 1. undefined references --------------------------------------------------
def test_qos021_undefined_drop_profile_names_what_is_defined(tmp_path: Path) -> None:
    text = BASE.replace("kind: lbe\n", "kind: lbe\n    drop-profile: bee\n") + \
        "drop-profiles:\n  be: {points: [[15, 30], [30, 100]]}\n  ef: {points: [[10, 100]]}\n"
    [d] = only(validate_text(tmp_path, text), "QOS021")
    assert texts([d], tmp_path) == [
        "T/p.yaml:13:19: error[QOS021]: service 'lbe' refers to drop profile 'bee', which is not defined\n"
        "  hint: did you mean 'be'? defined drop profiles: be, ef"]


def test_qos020_undefined_service_in_interface(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{role: core, speed: 1G, services: [best-effort, premium]}")
    [d] = only(validate_text(tmp_path, text), "QOS020")
    assert d.message == "interface r1:eth0 refers to service 'premium', which is not defined"
    assert d.hint.startswith("did you mean 'ip-premium'?")
    assert (d.location.line, d.location.column) == (18, 47)


def test_qos022_undefined_policer(tmp_path: Path) -> None:
    text = BASE.replace("kind: premium\n", "kind: premium\n    policer: prem-in\n")
    [d] = only(validate_text(tmp_path, text), "QOS022")
    assert d.message == "service 'ip-premium' refers to policer 'prem-in', which is not defined"
    assert d.hint == "defined policers: none"


def test_qos023_undefined_profile_and_qos024_classifier(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{profile: core, classifier: c1, role: edge, speed: 1G}")
    diags = validate_text(tmp_path, text)
    assert only(diags, "QOS023")[0].message == "interface r1:eth0 refers to profile 'core', which is not defined"
    assert only(diags, "QOS024")[0].message == "interface r1:eth0 refers to classifier 'c1', which is not defined"


def test_qos025_unknown_platform(tmp_path: Path) -> None:
    [d] = only(validate_text(tmp_path, BASE.replace("platform: linux", "platform: junos-mx960")), "QOS025")
    assert d.hint.startswith("did you mean 'junos-mx'?")
    assert d.location.line == 16


# 2. DSCP ----------------------------------------------------------------------
def test_qos030_invalid_dscp(tmp_path: Path) -> None:
    [d] = only(validate_text(tmp_path, BASE.replace("kind: lbe\n", "kind: lbe\n    dscp: [cs1, af14]\n")), "QOS030")
    assert (d.location.line, d.location.column) == (13, 17)
    assert "af14" in d.message


def test_qos031_code_point_claimed_twice(tmp_path: Path) -> None:
    [d] = only(validate_text(tmp_path, BASE.replace("kind: lbe\n", "kind: lbe\n    dscp: [cs1, ef]\n")), "QOS031")
    assert d.message == "DSCP ef (46) is claimed by services 'ip-premium' and 'lbe'"


def test_qos032_no_default_and_qos033_two_defaults(tmp_path: Path) -> None:
    assert "QOS032" in codes(validate_text(tmp_path, BASE.replace("    default: true\n", "")))
    text = BASE.replace("kind: lbe\n", "kind: lbe\n    default: true\n")
    [d] = only(validate_text(tmp_path, text), "QOS033")
    assert d.message == "services 'best-effort' and 'lbe' are both the default"


def test_qos034_service_without_dscp(tmp_path: Path) -> None:
    text = BASE + "  other:\n    queue: {share: 1%}\n"
    text = BASE.replace("  lbe:\n", "  bulk:\n    kind: assured\n    queue: {share: 5%}\n  lbe:\n")
    [d] = only(validate_text(tmp_path, text), "QOS034")
    assert d.message == "service 'bulk' has no DSCP (nor EXP or PCP), so no traffic can reach it"


def test_qos054_scavenger_code_point_not_declared_lbe(tmp_path: Path) -> None:
    text = BASE.replace("kind: lbe\n", "kind: other\n    dscp: [le]\n")
    [d] = only(validate_text(tmp_path, text), "QOS054")
    assert d.severity.value == "warning"


# 3. capacity --------------------------------------------------------------------
def test_qos040_shares_exceed_link(tmp_path: Path) -> None:
    text = BASE.replace("share: 40%", "share: 950M")
    [d] = only(validate_text(tmp_path, text), "QOS040")
    assert d.message == ("interface r1:eth0: guaranteed shares and strict-priority caps add up to 106% of the link "
                         "(best-effort 95%, ip-premium 10%, lbe 1%)")
    assert (d.location.line, d.location.column) == (18, 13)


def test_qos041_absolute_rate_needs_speed(tmp_path: Path) -> None:
    text = BASE.replace("share: 40%", "share: 400M").replace("{role: core, speed: 1G}", "{role: core}")
    [d] = only(validate_text(tmp_path, text), "QOS041")
    assert d.message == ("interface r1:eth0 has no speed, so service 'best-effort' share 400M cannot be checked "
                         "against the link")


# 4. strict without cap ----------------------------------------------------------------
def test_qos042_strict_without_cap_or_policer(tmp_path: Path) -> None:
    text = BASE.replace(", rate-cap: 10%", "")
    [d] = only(validate_text(tmp_path, text), "QOS042")
    assert texts([d], tmp_path) == [
        "T/p.yaml:10:49: error[QOS042]: strict-priority service 'ip-premium' has neither a rate cap nor a policer, "
        "so it can starve every other queue\n  hint: add queue.rate-cap (e.g. 10%) and/or an edge policer"]


def test_qos046_rate_cap_none_is_a_warning_at_the_policy_line_not_qos042(tmp_path: Path) -> None:
    """`rate-cap: none` says on purpose that a strict queue is uncapped (a vendor design runs it so): a warning at
    the field that says what it risks and how to cap it, never QOS042; omitting rate-cap stays QOS042."""
    diags = validate_text(tmp_path, BASE.replace("rate-cap: 10%", "rate-cap: none"))
    assert codes(diags) == ["QOS046", "QOS048"]  # QOS048: BASE's device is Linux, whose HTB refuses it (targets)
    assert texts(only(diags, "QOS046"), tmp_path) == [
        "T/p.yaml:10:65: warning[QOS046]: strict-priority service 'ip-premium' is uncapped on purpose (rate-cap: "
        "none): nothing limits its queue, so its traffic can starve every other service on each interface that "
        "carries it\n  hint: cap it with queue.rate-cap (e.g. 10%) or an edge policer (policer:) once the traffic it "
        "carries is known"]
    assert codes(validate_text(tmp_path, BASE.replace(", rate-cap: 10%", ""))) == ["QOS042"]


def test_qos046_not_said_where_a_policer_caps_the_uncapped_queue(tmp_path: Path) -> None:
    text = BASE.replace("rate-cap: 10%}", "rate-cap: none}\n    policer: p").replace(
        "devices:", "policers:\n  p: {cir: 100M, cbs: 64KB}\ndevices:")
    assert "QOS046" not in codes(validate_text(tmp_path, text))


def test_qos047_rate_cap_none_on_a_queue_that_is_not_strict(tmp_path: Path) -> None:
    text = BASE.replace("{share: 40%, priority: high}", "{share: 40%, priority: high, rate-cap: none}")
    [d] = only(validate_text(tmp_path, text), "QOS047")
    assert (d.location.line, d.location.column) == (7, 51) and d.severity.value == "error"
    assert d.message.startswith("service 'best-effort' has rate-cap: none, which only a strict-priority queue")
    assert d.hint == "remove rate-cap (or give it a rate), or set queue.strict: true"


def test_qos043_ceiling_below_share(tmp_path: Path) -> None:
    text = BASE.replace("{share: 40%, priority: high}", "{share: 40%, ceiling: 30%, priority: high}")
    assert only(validate_text(tmp_path, text), "QOS043")[0].location.line == 7


# 5. LBE protection -----------------------------------------------------------------
def test_qos050_lbe_priority_not_lower(tmp_path: Path) -> None:
    text = BASE.replace("{share: 1%, priority: low}", "{share: 1%, priority: high}")
    [d] = only(validate_text(tmp_path, text), "QOS050")
    assert (d.location.line, d.location.column) == (13, 34)
    assert d.hint == "set lbe.queue.priority: low"


def test_qos051_lbe_share_above_best_effort(tmp_path: Path) -> None:
    text = BASE.replace("{share: 1%, priority: low}", "{share: 45%, priority: low}")
    [d] = only(validate_text(tmp_path, text), "QOS051")
    assert d.message == "LBE service 'lbe' is guaranteed 45% of the link, more than best effort 'best-effort' (40%)"


def test_qos052_lbe_shares_a_queue(tmp_path: Path) -> None:
    text = BASE.replace("{share: 1%, priority: low}", "{shared-with: best-effort}")
    [d] = only(validate_text(tmp_path, text), "QOS052")
    assert d.message.startswith("LBE service 'lbe' shares a queue with 'best-effort'")


def test_qos053_lbe_share_above_5_percent_is_a_warning(tmp_path: Path) -> None:
    text = BASE.replace("{share: 1%, priority: low}", "{share: 8%, priority: low}")
    [d] = only(validate_text(tmp_path, text), "QOS053")
    assert d.severity.value == "warning"


# 6. policers ---------------------------------------------------------------------------
POLICED = BASE.replace("kind: premium\n", "kind: premium\n    policer: p\n").replace(
    "  lbe:\n", "  assured:\n    kind: assured\n    dscp: [af11, af12, af13]\n    policer: ar\n    rtt: 20ms\n"
    "    queue: {share: 20%, priority: high}\n  lbe:\n") + """\
policers:
  p: {cir: 10M, cbs: 1000B}
  ar: {cir: 50M, cbs: 64KB, pir: 40M, pbs: 32KB, conform: af11, exceed: af12, violate: af13}
"""


def test_policer_checks(tmp_path: Path) -> None:
    diags = validate_text(tmp_path, POLICED)
    assert only(diags, "QOS060")[0].message == ("policer 'p' cbs 1KB is below one MTU (1500 B): a full-size "
                                                "packet can never conform")
    assert only(diags, "QOS061")[0].message == "policer 'ar' PIR 40M is below its CIR 50M"
    assert only(diags, "QOS062")[0].message == "policer 'ar' PBS 32KB is below its CBS 64KB"
    [tcp] = only(diags, "QOS063")
    assert tcp.severity.value == "warning"
    assert tcp.message == ("policer 'ar' cbs 64KB is below CIR x RTT = 50M x 20ms = 125KB for TCP service "
                           "'assured'; TCP will not reach the committed rate")
    assert "2.5 MB" in tcp.hint


def test_qos065_remark_to_unclaimed_code_point(tmp_path: Path) -> None:
    text = POLICED.replace("violate: af13", "violate: af33")
    assert only(validate_text(tmp_path, text), "QOS065")[0].severity.value == "warning"


def test_qos064_violate_on_two_colour(tmp_path: Path) -> None:
    text = POLICED.replace("{cir: 10M, cbs: 1000B}", "{cir: 10M, cbs: 10KB, violate: drop}")
    assert "QOS064" in codes(validate_text(tmp_path, text))


# 7. drop profiles -------------------------------------------------------------------------
def test_drop_profile_range_and_monotonic(tmp_path: Path) -> None:
    text = BASE.replace("kind: best-effort\n", "kind: best-effort\n    drop-profile: a\n").replace(
        "kind: premium\n", "kind: premium\n    drop-profile: b\n") + \
        ("drop-profiles:\n  a: {points: [[15, 30], [19, 150]]}\n  b: {points: [[30, 50], [20, 100]]}\n"
         "  c: {min: 10, max: 50, max-probability: 10%}\n")
    diags = validate_text(tmp_path, text)
    assert only(diags, "QOS070")[0].message == "drop profile 'a' has 150, outside 0..100 %"
    assert only(diags, "QOS071")[0].message.startswith("drop profile 'b' is not monotonic")
    assert only(diags, "QOS072")[0].message == "drop profile 'c' is not used by any service"


def test_qos073_red_without_a_drop_profile_is_tail_drop(tmp_path: Path) -> None:
    """aqm: red with no drop profile ran tail drop on every target without a word."""
    text = BASE.replace("queue: {share: 40%, priority: high}", "queue: {share: 40%, priority: high, aqm: red}", 1)
    assert text != BASE
    (diag,) = only(validate_text(tmp_path, text), "QOS073")
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if "aqm: red" in ln)
    assert "'best-effort' asks for aqm: red but has no drop profile" in diag.message and diag.location.line == line
    assert "QOS073" not in codes(validate_text(tmp_path, BASE))  # red by default only with a profile: never said


# 8. roles -----------------------------------------------------------------------------
def test_qos080_transparent_must_not_remark(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{role: transparent, speed: 1G, trust: none}")
    [d] = only(validate_text(tmp_path, text), "QOS080")
    assert d.message == ("transparent interface r1:eth0 does not trust DSCP, so it would remark everything to the "
                         "default service")


def test_qos081_edge_without_classifier_warns(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{role: edge, speed: 1G}")
    assert only(validate_text(tmp_path, text), "QOS081")[0].severity.value == "warning"


# platform capability (generic) ------------------------------------------------------------
def test_qos091_more_services_than_queues(tmp_path: Path) -> None:
    text = BASE.replace("platform: linux", "platform: junos-m-series").replace(
        "  lbe:\n", "  nc:\n    kind: network-control\n    queue: {share: 5%, priority: high}\n"
        "  af:\n    kind: assured\n    dscp: [af11]\n    queue: {share: 5%, priority: high}\n  lbe:\n").replace(
        ", strict: true, rate-cap: 10%", "")
    [d] = only(validate_text(tmp_path, text), "QOS091")
    assert d.message.startswith("r1:eth0 needs 5 queues")


def test_qos092_priority_level_missing_on_platform(tmp_path: Path) -> None:
    text = BASE.replace("platform: linux", "platform: junos-m-series").replace(
        "{share: 40%, priority: high}", "{share: 40%, priority: medium-high}").replace(
        ", strict: true, rate-cap: 10%", "")
    [d] = only(validate_text(tmp_path, text), "QOS092")
    assert d.hint == "junos-m-series has priorities low, high"


def test_qos035_rule_marks_foreign_dscp(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{role: edge, speed: 1G, classifier: c}") + """\
classifiers:
  c:
    rules:
      - {name: video, match: {protocol: [udp]}, service: ip-premium, set-dscp: af41}
"""
    [d] = only(validate_text(tmp_path, text), "QOS035")
    assert d.message == "rule 'video' marks DSCP af41 (34), which does not belong to service 'ip-premium'"
    assert d.hint == "use one of ef"


def test_qos044_rate_cap_below_share(tmp_path: Path) -> None:
    text = BASE.replace("{share: 10%, priority: high, strict: true, rate-cap: 10%}",
                        "{share: 10%, priority: high, strict: true, rate-cap: 5%}")
    [d] = only(validate_text(tmp_path, text), "QOS044")
    assert d.message == "service 'ip-premium' rate cap is below its guaranteed share"


def test_qos082_classifier_on_core(tmp_path: Path) -> None:
    text = BASE.replace("{role: core, speed: 1G}", "{role: core, speed: 1G, classifier: c}") + \
        "classifiers:\n  c:\n    rules:\n      - {name: r, service: lbe}\n"
    [d] = only(validate_text(tmp_path, text), "QOS082")
    assert d.message == "core interface r1:eth0 has a classifier; core interfaces trust DSCP"


def test_qos093_two_strict_queues_on_mx(tmp_path: Path) -> None:
    text = BASE.replace("platform: linux", "platform: junos-mx").replace(
        "  lbe:\n", "  voice:\n    kind: premium\n    dscp: [voice-admit]\n"
        "    queue: {share: 5%, priority: high, strict: true, rate-cap: 5%}\n  lbe:\n")
    [d] = only(validate_text(tmp_path, text), "QOS093")
    assert d.message == "r1:eth0: 2 strict-priority services but junos-mx allows 1 per interface"
    assert (d.location.line, d.location.column) == (14, 48)  # the second strict service's `strict: true`


def test_qos094_zero_share_on_cisco(tmp_path: Path) -> None:
    text = BASE.replace("platform: linux", "platform: ios-xe").replace("{share: 1%, priority: low}",
                                                                     "{share: 0%, priority: low}")
    [d] = only(validate_text(tmp_path, text), "QOS094")
    assert d.message == "service 'lbe' has a 0% share, which ios-xe cannot schedule (device r1)"


def test_qos095_policer_outside_platform_range(tmp_path: Path) -> None:
    text = BASE.replace("platform: linux", "platform: catalyst6500").replace(
        "{role: core, speed: 1G}", "{role: edge, speed: 1G, trust: dscp, port-type: 1p3q8t}").replace(
        "kind: premium\n", "kind: premium\n    policer: p\n") + "policers:\n  p: {cir: 10k, cbs: 40MB}\n"
    diags = only(validate_text(tmp_path, text), "QOS095")
    assert [d.message for d in diags] == [
        "policer 'p' cir 10k is outside catalyst6500's range 32k..4G (device r1)",
        "policer 'p' cbs 40MB is outside catalyst6500's range 1KB..31250KB (device r1)"]


# issue 26 ---------------------------------------------------------------------------------
DROPPED = BASE.replace("queue: {share: 40%, priority: high}", "queue: {share: 40%, priority: high, aqm: AQM}\n"
                       "    drop-profile: be", 1) + "drop-profiles:\n  be: {points: [[15, 30], [30, 100]]}\n"


def test_qos074_drop_profile_ignored_by_aqm_none_or_codel(tmp_path: Path) -> None:
    """aqm: none (or codel) beside a drop profile ran tail drop (fq_codel) and ignored the profile without a word."""
    line = next(n for n, ln in enumerate(DROPPED.splitlines(), 1) if "aqm: AQM" in ln)
    column = DROPPED.splitlines()[line - 1].index("AQM") + 1
    (none,) = only(validate_text(tmp_path, DROPPED.replace("AQM", "none")), "QOS074")
    assert none.severity.value == "warning"
    assert (none.location.line, none.location.column) == (line, column)
    assert none.message == ("service 'best-effort' has drop profile 'be', but aqm: none is tail drop: no target "
                            "runs the profile")
    assert none.hint == "write aqm: red to run the profile (the default with a drop profile), or remove drop-profile:"
    (codel,) = only(validate_text(tmp_path, DROPPED.replace("AQM", "codel")), "QOS074")
    assert codel.message == ("service 'best-effort' has drop profile 'be', but aqm: codel has no drop curve: no "
                             "target runs the profile")
    assert "QOS074" not in codes(validate_text(tmp_path, DROPPED.replace("AQM", "red")))
    assert "QOS074" not in codes(validate_text(tmp_path, DROPPED.replace(", aqm: AQM", "")))


def test_qos066_markdown_that_lowers_a_drop_precedence(tmp_path: Path) -> None:
    """RFC 2597 markdown raises the drop precedence; exceed af13 -> af12, or violate below exceed, was accepted."""
    def markdown(conform: str, exceed: str, violate: str) -> list:
        text = POLICED.replace("conform: af11, exceed: af12, violate: af13",
                               f"conform: {conform}, exceed: {exceed}, violate: {violate}")
        diags = validate_text(tmp_path, text)
        found = [d for d in diags if d.code == "QOS066"]
        for d in found:
            assert d.severity.value == "warning"
            label = d.message.split()[2]
            row = text.splitlines()[d.location.line - 1]
            assert row.index(f"{label}: ") + len(label) + 3 == d.location.column, (row, d.location)  # the action
        return [d.message for d in found]

    assert markdown("af11", "af12", "af13") == []
    assert markdown("af11", "drop", "drop") == []
    assert markdown("af13", "af12", "drop") == [
        "policer 'ar' exceed re-marks to af12 (drop precedence 2), below af13 (3) that conforming traffic carries: "
        "out-of-profile traffic would be dropped after in-profile traffic"]
    assert markdown("af11", "af13", "af12") == [
        "policer 'ar' violate re-marks to af12 (drop precedence 2), below af13 (3) that exceeding traffic carries: "
        "out-of-profile traffic would be dropped after in-profile traffic"]
    # conform transmits what the service's code points carry: af13 traffic that exceeds would become af12
    assert markdown("transmit", "af12", "af13") == [
        "policer 'ar' exceed re-marks to af12 (drop precedence 2), below af13 (3) that conforming traffic of service "
        "'assured' carries: out-of-profile traffic would be dropped after in-profile traffic"]
    [d] = [d for d in validate_text(tmp_path, POLICED.replace("violate: af13", "violate: af11")) if d.code == "QOS066"]
    assert d.hint == ("RFC 2597 section 2: a congested node discards the higher drop precedence first, so a policer's "
                      "markdown raises it within the AF class (conform af11, exceed af12, violate af13)")

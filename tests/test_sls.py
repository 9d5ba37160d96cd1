"""SLS documents and the bounds qosc derives from the configuration (issue 7, domain.md 5)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from qosc import api
from qosc.render import UnsafeValue
from qosc.sls.bounds import derive, fmt_time
from qosc.sls.document import build_document
from qosc.sls.render import md_escape, render_service

ROOT = Path(__file__).resolve().parent.parent
ASSURED = ROOT / "policies" / "assured-rate.yaml"
# ip-premium's declared sls.path in assured-rate.yaml: 1G customer edge (JUNOS MX), the MX's 10G core link,
# 2.5G POS on a GSR; assured's: the same edge, the 2.5G M-series core (which does not schedule premium), the
# GSR.  Device names are read from the policy, speeds are checked.
EDGE, UPLINK, GSR = re.search(r"ip-premium:.*?path: \[(.*?)\]", ASSURED.read_text(), re.DOTALL).group(1).split(", ")  # type: ignore[union-attr]
CORE = re.search(r"assured:.*?path: \[(.*?)\]", ASSURED.read_text(), re.DOTALL).group(1).split(", ")[1]  # type: ignore[union-attr]
GEANT = ROOT / "policies" / "geant-lbe.yaml"

KB = 1000  # policies write 64KB for 64,000 bytes (KiB would be 1024)
G = 10**9
M = 10**6


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qosc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)


def model(path: Path):
    result = api.validate(path)
    assert result.policy is not None and result.ok, [str(d) for d in result.diagnostics if d.is_error]
    return result.policy


def line_col(text: str, needle: str, value: str) -> tuple[int, int]:
    """1-based line and column of `value` on the only line containing `needle`."""
    lines = [i for i, x in enumerate(text.splitlines()) if needle in x]
    assert len(lines) == 1, (needle, lines)
    return lines[0] + 1, text.splitlines()[lines[0]].index(value) + 1


# -- derived bounds, checked against hand-computed values ----------------------------------------------------


def test_premium_bounds_of_assured_rate_match_hand_computation() -> None:
    policy = model(ASSURED)
    premium = policy.service_map["ip-premium"]
    d = derive(policy, premium)

    # Edge policer premium-in: single-rate, exceed drop, so the burst into the strict queue is its CBS.
    burst, mtu = 64 * KB, 1500                       # CBS 64KB = 64,000 B; defaults.mtu 1500B
    assert d.envelope.burst == burst == 64_000 and d.envelope.rate == 10 * M
    bits = (burst + mtu) * 8                         # (64,000 + 1,500) x 8 = 524,000 bit
    assert bits == 524_000

    hops = {h.label: h for h in d.path}
    assert list(hops) == [EDGE, UPLINK, GSR] and EDGE == "edge-mx:ge-0/0/1" and UPLINK == "edge-mx:xe-0/1/0"

    edge = hops[EDGE]                                # 1 Gbit/s customer edge, strict priority, share 10%
    assert edge.link_rate == 1 * G and edge.mtu == 1500 and edge.scheduling == "strict priority"
    assert edge.min_rate == 10 * G // 100 == 100 * M  # 10% x 1,000,000,000 = 100,000,000 bit/s
    assert edge.delay_us == Fraction(524_000 * 10**6, 1 * G) == 524  # 524,000 bit / 1e9 bit/s = 524 us
    assert edge.rate_formula == "10% × 1 Gbit/s = 100 Mbit/s"
    # JUNOS sizes the hop (issue 17): strict-high shaped at its 100 Mbit/s cap with burst-size 64,000 B (the CBS,
    # above 1 ms at this port's cap; issue 26: each port its own burst), so the 64,000 B burst leaves at the link rate
    assert edge.sized_by == "junos"
    assert edge.delay_formula == ("junos: sigma / C = 64000 B x 8 / 1 Gbit/s + F / C = 512 µs + 1500 B x 8 / "
                                  "1 Gbit/s = 524 µs (strict-high shaped at its cap 100 Mbit/s: drains at the cap)")

    uplink = hops[UPLINK]                            # 10 Gbit/s core link of the MX, strict priority, share 10%
    assert uplink.link_rate == 10 * G and uplink.scheduling == "strict priority"
    assert uplink.min_rate == 10 * 10 * G // 100 == 1 * G  # 10% x 10,000,000,000 = 1,000,000,000 bit/s
    assert uplink.delay_us == Fraction(524_000 * 10**6, 10 * G) == Fraction(524, 10)  # 524,000 bit / 1e10 = 52.4 us
    assert uplink.sized_by == "junos"
    assert uplink.delay_formula == ("junos: sigma / C = 64000 B x 8 / 10 Gbit/s + F / C = 51.2 µs + 1500 B x 8 / "
                                    "10 Gbit/s = 52.4 µs (strict-high shaped at its cap 1 Gbit/s: drains at the cap)")

    gsr = hops[GSR]                                  # 2.5 Gbit/s POS, strict priority
    assert gsr.link_rate == 25 * G // 10 and gsr.scheduling == "strict priority"
    assert gsr.min_rate == 25 * G // 100 == 250 * M  # 10% x 2,500,000,000 = 250,000,000 bit/s
    assert gsr.delay_us == Fraction(524_000 * 10**6, 25 * G // 10) == Fraction(2096, 10)  # 209.6 us
    # IOS sizes the hop (issue 17): priority policed at its 250 Mbit/s cap with bc = the 64,000 B CBS, so at most
    # that bucket waits, served at the link rate
    assert gsr.sized_by == "ios-mqc"
    assert gsr.delay_formula == ("ios-mqc: sigma / C = 64000 B x 8 / 2.5 Gbit/s + F / C = 204.8 µs + 1500 B x 8 / "
                                 "2.5 Gbit/s = 209.6 µs (priority policed at its cap 250 Mbit/s: what the policer "
                                 "admits leaves at the link rate 2.5 Gbit/s)")

    # Sum along the path, every hop bounded: 524 + 52.4 + 209.6 = 786 us.
    assert d.path_delay_us == 786 and d.path_delay_complete
    assert d.path_delay_formula == "524 µs + 52.4 µs + 209.6 µs = 786 µs"
    assert d.min_rate == (100 * M, edge)             # the bottleneck is the 1G edge

    # Every interface scheduling premium: 10G links give 524,000 / 1e10 = 52.4 us.
    per_iface = {h.label: h.delay_us for h in d.interfaces}
    assert per_iface["edge-mx:xe-0/1/0"] == Fraction(524, 10)
    assert per_iface["asr-1:TenGigabitEthernet0/1/0"] == Fraction(524, 10)
    # linux-tc shapes premium at its 100 Mbit/s cap with a 64,000 B bucket (the CBS), so the 64,000 B burst
    # leaves at the link rate; one 1514 B frame (Ethernet header counted) ahead: (64,000 + 1,514) x 8 / 1e9
    assert per_iface["linux-gw:eth0"] == Fraction((64_000 + 1514) * 8 * 10**6, G) == Fraction(65514, 125)
    assert "core-m:so-1/2/0" not in per_iface


def test_assured_and_lbe_bounds_of_assured_rate() -> None:
    policy = model(ASSURED)
    d = derive(policy, policy.service_map["assured"])
    rates = {h.label: h.min_rate for h in d.path}
    assert rates == {
        EDGE: 40 * 1 * G // 100,                     # 40% x 1 Gbit/s   = 400 Mbit/s
        CORE: 40 * 25 * G // 1000,                   # 40% x 2.5 Gbit/s = 1 Gbit/s
        GSR: 40 * 25 * G // 1000,                    # 40% x 2.5 Gbit/s = 1 Gbit/s
    }
    assert d.min_rate[0] == 400 * M >= 50 * M        # declared rate 50M is supported
    # trTCM ar-in remarks every colour into the AF queue: nothing bounds its burst, and the queue is WRR.
    assert d.envelope.burst is None and "red traffic stays in the queue" in (d.envelope.note or "")
    assert all(h.delay_us is None for h in d.path) and d.path_delay_us is None
    assert "strict-priority queue of ip-premium is served first" in (d.path[0].delay_note or "")
    lbe = derive(policy, policy.service_map["lbe"])
    assert {h.label: h.min_rate for h in lbe.interfaces}["edge-mx:ge-0/0/1"] == 1 * G // 100  # 1% x 1G = 10M


def test_fmt_time() -> None:
    assert fmt_time(524) == "524 µs" and fmt_time(Fraction(2096, 10)) == "209.6 µs"
    assert fmt_time(10_000) == "10 ms" and fmt_time(Fraction(1, 3)) == "≈ 0.3333 µs"


def test_assured_rate_declares_no_sls_it_cannot_keep() -> None:
    result = api.validate(ASSURED)
    assert result.ok
    assert [d for d in result.diagnostics if d.code.startswith("QOS16")] == []


def test_a_hop_that_does_not_schedule_the_service_is_said(tmp_path: Path) -> None:
    """Premium's path through core-m, whose M-series has no Premium queue (the bundled policy's path avoids it)."""
    path, text = variant(tmp_path, PATH_LINE, f"      path: [{EDGE}, {CORE}, {GSR}]\n")
    result = api.validate(path)
    sls = [d for d in result.diagnostics if d.code.startswith("QOS16")]
    assert [(d.code, d.severity.value) for d in sls] == [("QOS163", "warning")]
    line = [i + 1 for i, x in enumerate(text.splitlines()) if f"path: [{EDGE}, {CORE}" in x][1]
    assert (sls[0].location.line, sls[0].location.column) == (line, text.splitlines()[line - 1].index("core-m") + 1)
    assert f"{CORE} does not schedule it" in sls[0].message
    assert result.policy is not None
    d = derive(result.policy, result.policy.service_map["ip-premium"])
    core = {h.label: h for h in d.path}[CORE]        # M-series: premium not scheduled on this interface
    assert core.found and not core.scheduled and core.delay_us is None and core.min_rate is None
    # summed over the two hops that have a bound: 524 + 209.6 = 733.6 us, and said to be partial
    assert d.path_delay_us == Fraction(7336, 10) and not d.path_delay_complete
    assert "warning[QOS163]" in render_service(result.policy, result.policy.service_map["ip-premium"], "md")


# -- declared targets the configuration cannot support -----------------------------------------------------

def premium_sls_block(text: str) -> str:
    """The `sls:` block of ip-premium in assured-rate.yaml, as written (up to the next service)."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, x in enumerate(lines) if x == "  ip-premium:\n")
    sls = next(i for i in range(start, len(lines)) if lines[i] == "    sls:\n")
    end = next(i for i in range(sls + 1, len(lines)) if not lines[i].startswith("      "))
    return "".join(lines[sls:end])


PREMIUM_SLS = premium_sls_block(ASSURED.read_text())
PATH_LINE = re.search(r"      path: \[.*\]\n", PREMIUM_SLS).group(0)  # type: ignore[union-attr]


def variant(tmp_path: Path, old: str, new: str, name: str = "v.yaml") -> tuple[Path, str]:
    text = ASSURED.read_text()
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return path, text


def sls_diags(path: Path) -> list:
    return [d for d in api.validate(path).diagnostics if d.code.startswith("QOS16") and d.code != "QOS163"]


def test_rate_above_minimum_and_above_cir(tmp_path: Path) -> None:
    path, text = variant(tmp_path, PREMIUM_SLS, PREMIUM_SLS.replace("rate: 10M", "rate: 200M"))
    diags = sls_diags(path)
    assert [d.code for d in diags] == ["QOS161", "QOS164"]
    where = line_col(text, "rate: 200M", "200M")
    assert all((d.location.line, d.location.column) == where for d in diags)
    assert ("declares rate 200 Mbit/s, but its minimum rate along sls.path is only 100 Mbit/s at "
            "edge-mx:ge-0/0/1 (edge-mx:ge-0/0/1: 10% × 1 Gbit/s = 100 Mbit/s)") in diags[0].message
    assert "above the committed rate 10 Mbit/s of its edge policer premium-in" in diags[1].message
    proc = run("validate", str(path))
    assert proc.returncode == 1 and f"{path}:{where[0]}:{where[1]}: error[QOS161]" in proc.stderr


def test_delay_and_ipdv_below_the_summed_bound(tmp_path: Path) -> None:
    path, text = variant(tmp_path, PREMIUM_SLS, PREMIUM_SLS.replace("delay: 10ms", "delay: 700us")
                         .replace("ipdv: 1ms", "ipdv: 500us"))
    diags = sls_diags(path)
    assert [d.code for d in diags] == ["QOS162", "QOS166"]
    assert (diags[0].location.line, diags[0].location.column) == line_col(text, "delay: 700us", "700us")
    assert (diags[1].location.line, diags[1].location.column) == line_col(text, "ipdv: 500us", "500us")
    # 700 us < 524 + 52.4 + 209.6 = 786 us, summed over the three hops
    assert ("declares delay 700 µs, below the queueing delay bound summed along sls.path: "
            "524 µs + 52.4 µs + 209.6 µs = 786 µs") in diags[0].message
    assert diags[0].hint == "declare at least 786us, or lower the policed burst (CBS) of the service"
    # the bound itself is supported
    path, _ = variant(tmp_path, PREMIUM_SLS, PREMIUM_SLS.replace("delay: 10ms", "delay: 786us"), "ok2.yaml")
    assert sls_diags(path) == []


def test_a_bigger_burst_raises_the_bound(tmp_path: Path) -> None:
    # CBS 1MB: (1,000,000 + 1,500) x 8 / 1e9 = 8.012 ms at the edge, / 1e10 = 801.2 us on the MX's core link,
    # / 2.5e9 = 3.2048 ms at the GSR: 12.018 ms
    path, _ = variant(tmp_path, "    cbs: 64KB\n", "    cbs: 1MB\n")
    policy = api.validate(path).policy
    d = derive(policy, policy.service_map["ip-premium"])
    assert [h.delay_us for h in d.path if h.delay_us] == [Fraction(8012), Fraction(8012, 10), Fraction(32048, 10)]
    assert d.path_delay_us == 12018
    diags = sls_diags(path)
    # declared delay 10 ms and IPDV 1 ms are both below 12.018 ms
    assert [d.code for d in diags] == ["QOS162", "QOS166"]
    assert "8.012 ms + 801.2 µs + 3.2048 ms = 12.018 ms" in diags[0].message
    assert diags[0].hint.startswith("declare at least 12018us")


def test_unknown_path_hops(tmp_path: Path) -> None:
    path, text = variant(tmp_path, PREMIUM_SLS, PREMIUM_SLS.replace(
        PATH_LINE, "      path: [edge-mx:ge-0/0/9, gsr-9:POS0/0]\n"))
    diags = sls_diags(path)
    assert [d.code for d in diags] == ["QOS160", "QOS160"]
    assert "device 'edge-mx' has no interface 'ge-0/0/9'" in diags[0].message
    assert (diags[0].location.line, diags[0].location.column) == line_col(text, "ge-0/0/9", "edge-mx:ge-0/0/9")
    assert "hop 'gsr-9:POS0/0' names no device" in diags[1].message
    assert diags[1].location.column == line_col(text, "ge-0/0/9", "gsr-9")[1]


def test_lbe_declaring_guarantees_warns(tmp_path: Path) -> None:
    path, _ = variant(tmp_path, "    queue: {share: 1%, buffer: 1%, priority: low}\n",
                         "    queue: {share: 1%, buffer: 1%, priority: low}\n    sls: {rate: 1M, delay: 5ms}\n")
    diags = [d for d in api.validate(path).diagnostics if d.code == "QOS165"]
    assert len(diags) == 1 and diags[0].severity.value == "warning"
    assert "declares rate, delay, but LBE is not parameterised" in diags[0].message


# -- documents -----------------------------------------------------------------------------------------------


def test_markdown_sections_and_formulas() -> None:
    policy = model(ASSURED)
    md = render_service(policy, policy.service_map["ip-premium"], "md")
    for heading in ("# SLS: ip-premium (assured-rate)", "## 1. Identity and scope", "## 2. Flow identification",
                    "## 3. Traffic envelope and conformance test", "## 4. Excess treatment",
                    "## 5. Performance guarantees", "### 5.1 Declared targets (promised in the policy)",
                    "### 5.2 Bounds derived from the configuration",
                    "### 5.3 Declared targets against derived bounds", "## 6. Service schedule",
                    "## 7. Reliability", "## Bandwidth allocation"):
        assert f"\n{heading}\n" in "\n" + md, heading
    # declared and derived kept apart: the declared table comes before the derived section
    assert md.index("| one-way delay | d | 10 ms |") < md.index("### 5.2")
    assert ("| edge-mx:ge-0/0/1 | 1 Gbit/s | strict priority | 10% × 1 Gbit/s = 100 Mbit/s | "
            "junos: sigma / C = 64000 B x 8 / 1 Gbit/s + F / C = 512 µs + 1500 B x 8 / 1 Gbit/s = 524 µs "
            "(strict-high shaped at its cap 100 Mbit/s: drains at the cap) |") in md
    assert "ios-mqc: sigma / C = 64000 B x 8 / 2.5 Gbit/s + F / C = 204.8 µs + 1500 B x 8 / 2.5 Gbit/s = 209.6 µs" in md
    assert "Σ per-hop bounds = 524 µs + 52.4 µs + 209.6 µs = 786 µs" in md  # sized hops: each its own formula
    assert ("| minimum rate along the path | min over hops = 100 Mbit/s at edge-mx:ge-0/0/1 | "
            "declared 10 Mbit/s: supported |") in md
    assert "single-rate two-colour token bucket (CIR, CBS)" in md and "| CBS | 64KB |" in md
    assert "| site-in / premium-video | 198.18.20.0/24 | any | udp | any | 5004-5005 |" in md
    assert "- exceeding traffic (premium-in): drop" in md
    assert "warning[" not in md  # every hop schedules premium (test_a_hop_that_does_not_schedule_the_service_is_said)
    # tables are preceded by a blank line (GitHub needs one after a paragraph)
    for match in re.finditer(r"\n\|[^\n]*\|\n\|---", md):
        before = md[:match.start()].rsplit("\n", 1)[-1]
        assert before == "", md[match.start() - 80:match.start() + 20]

    assured = render_service(policy, policy.service_map["assured"], "md")
    assert "two-rate three-colour marker, trTCM (RFC 2698: CIR, CBS, PIR, PBS)" in assured
    assert "| exceed (yellow) | remark to af22 (20) and transmit (stays in the 'assured' queue) |" in assured
    assert "| PBS | 5MB |" in assured and "| bit rate | r | 50 Mbit/s |" in assured
    assert "| 24x7 |" not in assured and "\n24x7\n" in assured  # schedule section


def test_lbe_sls_is_not_parameterised() -> None:
    policy = model(GEANT)
    md = render_service(policy, policy.service_map["lbe"], "md")
    assert "Less than Best Effort is not parameterised: it guarantees nothing end to end." in md
    assert "DSCP 8 (001000, TOS 0x20) must never be rewritten, in particular not to 0 (best effort)" in md
    assert "0% of each link: no minimum" in md
    assert "| de1.de:so-1/2/0 | 2.5 Gbit/s | 0% × 2.5 Gbit/s = 0 bit/s |" in md
    for absent in ("Performance guarantees", "Traffic envelope", "Reliability", "Excess treatment"):
        assert absent not in md
    policy = model(ASSURED)
    md = render_service(policy, policy.service_map["lbe"], "md")
    assert "1% of each link, so that LBE TCP is not starved" in md
    assert "| edge-mx:ge-0/0/1 | 1 Gbit/s | 1% × 1 Gbit/s = 10 Mbit/s |" in md


def test_geant_premium_without_path() -> None:
    policy = model(GEANT)
    doc = build_document(policy, policy.service_map["ip-premium"])
    assert doc.path == [] and doc.findings == []
    [row] = doc.interfaces
    # EF is 'high' like BE and NC: weighted round robin, so no delay bound is claimed
    assert row["scheduling"] == "WRR" and row["delay"].startswith("not derived: weighted round robin at priority")
    assert row["rate"] == "90% × 2.5 Gbit/s = 2.25 Gbit/s"
    # declared delay and IPDV without a path: said plainly to be unchecked, never silently "supported"
    assert {"bound": "queueing delay along the path", "formula": "no sls.path is declared, so no end-to-end "
            "bound is derived", "verdict": "declared delay 10 ms, IPDV 2 ms: not checked"} in doc.end_to_end


def test_values_are_escaped(tmp_path: Path) -> None:
    path, _ = variant(tmp_path, "    description: Assured Rate, 50 Mbit/s committed per site\n",
                      "    description: \"<script>alert(1)</script> | **bold** [x](http://evil.example) & `code`\"\n")
    policy = model(path)
    html = render_service(policy, policy.service_map["assured"], "html")
    assert "<script>" not in html and ("&lt;script&gt;alert(1)&lt;/script&gt; | **bold** [x](http://evil.example) "
                                       "&amp; `code`") in html
    md = render_service(policy, policy.service_map["assured"], "md")
    assert "<script>" not in md
    assert ("> &lt;script&gt;alert(1)&lt;/script&gt; \\| \\*\\*bold\\*\\* \\[x\\](http://evil.example) &amp; "
            "\\`code\\`") in md
    with pytest.raises(UnsafeValue):
        md_escape("two\nlines")


def test_html_is_self_contained() -> None:
    policy = model(ASSURED)
    html = render_service(policy, policy.service_map["ip-premium"], "html")
    assert html.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in html
    for fetch in ("src=", "href=", "url(", "@import", "http://", "https://", "<link", "<script", "<img", "<iframe"):
        assert fetch not in html, fetch
    assert html.count('<svg class="allocation"') == 3  # one chart per path hop (all three differ)
    assert html.count('class="share current"') == 3    # premium highlighted where it is scheduled: every hop
    assert '<table id="path">' in html and '<table id="declared">' in html


# -- the command ----------------------------------------------------------------------------------------------


def test_cli_writes_one_document_per_service(tmp_path: Path) -> None:
    proc = run("sls", "policies/assured-rate.yaml", "-o", str(tmp_path / "md"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "md").iterdir()) == [
        "assured.md", "best-effort.md", "ip-premium.md", "lbe.md", "network-control.md"]
    assert "warning[" not in proc.stderr
    proc = run("sls", "policies/geant-lbe.yaml", "--service", "lbe", "--service", "ip-premium", "--format", "html",
               "-o", str(tmp_path / "html"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "html").iterdir()) == ["ip-premium.html", "lbe.html"]
    again = run("sls", "policies/geant-lbe.yaml", "--service", "lbe", "--format", "html", "-o",
                str(tmp_path / "html2"))
    assert (tmp_path / "html2" / "lbe.html").read_bytes() == (tmp_path / "html" / "lbe.html").read_bytes()
    assert again.returncode == 0
    proc = run("sls", "policies/geant-lbe.yaml", "--service", "nope", "-o", str(tmp_path / "x"))
    assert proc.returncode == 2 and "no service nope" in proc.stderr
    proc = run("sls", "examples/geant-lbe-first-trial.yaml", "-o", str(tmp_path / "bad"))
    assert proc.returncode == 1 and "QOS050" in proc.stderr and not (tmp_path / "bad").exists()


def test_cli_unsupported_target_still_documents_it(tmp_path: Path) -> None:
    path, _ = variant(tmp_path, PREMIUM_SLS, PREMIUM_SLS.replace("rate: 10M", "rate: 200M"))
    proc = run("sls", str(path), "--service", "ip-premium", "-o", str(tmp_path / "out"))
    assert proc.returncode == 1 and "error[QOS161]" in proc.stderr
    md = (tmp_path / "out" / "ip-premium.md").read_text()
    assert "declared 200 Mbit/s: NOT supported (QOS161)" in md
    assert "declared 200 Mbit/s: NOT supported (QOS164)" in md


def test_assured_rate_sls_states_the_end_host_window() -> None:
    from qosc import api
    from qosc.sls.document import build_document
    policy = api.validate(ROOT / "policies" / "assured-rate.yaml").policy
    doc = build_document(policy, policy.service_map["assured"])
    # 50 Mbit/s x 20 ms / 8 = 125,000 B: the window each end needs for the guaranteed rate
    assert doc.host_requirements == [
        "each end needs a TCP window of at least rate x RTT / 8 = 50 Mbit/s x 20 ms / 8 = 125000 B (socket buffers "
        "about twice that); declare hosts: to get their sysctl settings from the linux-host target"]
    hosts = api.validate(ROOT / "policies" / "grid-hosts.yaml").policy
    lines = [line for s in hosts.services for line in build_document(hosts, s).host_requirements]
    # the 21.4 ms / 460 Mbit/s path is Assured Rate; the 14.5 ms path is LBE, which is not parameterised
    assert any("21.4 ms" in line and "1230500 B window" in line for line in lines)
    assert not any("14.5 ms" in line for line in lines)


def test_sls_of_rules_that_mark_nothing_and_of_an_uncapped_strict_queue(tmp_path: Path) -> None:
    """A rule into a service carried in EXP alone (what import lifts of JVD ewan-fin wanedge1's IRB filters) made
    the SLS end in an IndexError (the service's first DSCP); a `mark: false` rule and `rate-cap: none` are said."""
    path = tmp_path / "p.yaml"
    path.write_text("""\
qosc: 1
name: t
services:
  best-effort:
    kind: best-effort
    default: true
    dscp: [be]
    exp: [0]
    queue: {share: 40%, priority: high}
  llq:
    kind: other
    exp: [2]
    queue: {share: 10%, strict: true, rate-cap: none}
  high:
    kind: assured
    dscp: [af41]
    exp: [1]
    queue: {share: 20%, priority: high}
  lbe:
    kind: lbe
    queue: {share: 1%, priority: low}
classifiers:
  irb-in:
    rules:
      - {name: stock, match: {destination: [198.18.0.0/16]}, service: llq}
      - {name: keep, match: {destination: [198.19.0.0/16]}, service: high, mark: false}
devices:
  r1:
    platform: junos-mx
    interfaces:
      xe-0/0/0: {role: core, speed: 10G, encapsulation: mpls, trust: exp}
      irb: {role: edge, speed: 10G, unit: 1, classifier: irb-in, rewrite: [exp]}
""")
    result = api.validate(path)
    assert result.policy is not None, [str(d) for d in result.diagnostics]
    llq = render_service(result.policy, result.policy.service_map["llq"], "md")
    assert "none: its service has no DSCP (carried in EXP or PCP)" in llq
    assert "no queue rate-cap (rate-cap: none)" in llq
    high = render_service(result.policy, result.policy.service_map["high"], "md")
    assert "none: the packets keep their DSCP" in high


def test_sls_of_a_service_without_code_points(tmp_path: Path) -> None:
    """A service that only a `mark: false` rule reaches has no code point (what import lifts of a JUNOS unit fixed
    into a class no code point reaches): the SLS says it has no DSCP, not an empty list "marked at the edge"."""
    path = tmp_path / "p.yaml"
    path.write_text("""\
qosc: 1
name: t
services:
  best-effort: {kind: best-effort, default: true}
  fixed: {kind: other}
classifiers:
  c:
    rules:
      - {name: fixed, service: fixed, mark: false}
devices:
  r1:
    platform: junos-mx
    interfaces:
      ae1: {role: edge, trust: none, classifier: c, rewrite: [], egress-queueing: device-default}
""")
    result = api.validate(path)
    assert result.policy is not None, [str(d) for d in result.diagnostics]
    for fmt in ("md", "html"):
        text = render_service(result.policy, result.policy.service_map["fixed"], fmt)
        assert "DSCP: none (the service has no code point" in text and "DSCP:  (" not in text, text
        assert "marked at the edge" not in text, text

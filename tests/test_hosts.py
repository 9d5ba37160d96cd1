"""End hosts (issue 9): the `hosts:` language, the buffer plan from rate x RTT, and QOS150-QOS159."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import codes

from qosc import api
from qosc.diagnostics import Diagnostic, Severity
from qosc.hosts import (
    HEADROOM,
    INT_MAX,
    STOCK_RMEM,
    STOCK_WMEM,
    Triple,
    autotuned_window,
    cap_for,
    explicit_window,
    mbit,
    plan,
    service_requirements,
    txqueuelen_for,
    window_for,
)

ROOT = Path(__file__).resolve().parent.parent

SERVICES = """\
qosc: 1
name: h
services:
  best-effort:
    kind: best-effort
    default: true
    queue: {share: 44%, priority: high}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    queue: {share: 50%, priority: high}
    sls: {rate: 460M}
  lbe:
    kind: lbe
    queue: {share: 1%, priority: low}
  network-control:
    kind: network-control
    queue: {share: 5%, priority: high}
"""

# The two measured paths of the source (domain brief 4.5).
MEASURED = """\
hosts:
  se1:
    platform: linux
    interfaces:
      eth0: {speed: 1G}
    paths:
      - {peer: se2, rtt: 14.5ms, rate: 750M, service: lbe}
      - {peer: se3, rtt: 21.4ms, service: assured}
"""

# What a 2009 default distribution shipped (Linux 2.6.9, e.g. Scientific Linux 4): 128 KB everywhere.
LEGACY_2009 = """\
    current:
      rmem_max: 131071
      wmem_max: 131071
      tcp_rmem: 4096 87380 174760
      tcp_wmem: 4096 16384 131072
"""


def policy_of(tmp_path: Path, hosts: str) -> tuple[object, list[Diagnostic]]:
    path = tmp_path / "p.yaml"
    path.write_text(SERVICES + textwrap.dedent(hosts), encoding="utf-8")
    result = api.validate(path)
    return result.policy, result.diagnostics


def diags_of(tmp_path: Path, hosts: str) -> list[Diagnostic]:
    return policy_of(tmp_path, hosts)[1]


def only(diags: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diags if d.code == code]


# -- arithmetic ----------------------------------------------------------------


def test_window_is_the_bandwidth_delay_product_exactly() -> None:
    assert window_for(750_000_000, 14_500) == 1_359_375  # 1.36 MB
    assert window_for(460_000_000, 21_400) == 1_230_500  # 1.23 MB
    assert window_for(1, 1) == 1  # rounded up, never down
    assert cap_for(131_071, 14_500) == 72_315_034
    assert mbit(72_315_034) == "72.3 Mbit/s" and mbit(750_000_000) == "750 Mbit/s"


@pytest.mark.parametrize(("speed", "qlen"), [(10**8, 1000), (10**9, 2000), (2_500_000_000, 5000), (10**10, 10000),
                                              (10**11, 10000)])
def test_txqueuelen_scales_2000_per_gbit_within_bounds(speed: int, qlen: int) -> None:
    assert txqueuelen_for(speed) == qlen


# -- the plan ------------------------------------------------------------------


def test_measured_paths_get_at_least_their_windows(tmp_path: Path) -> None:
    policy, diags = policy_of(tmp_path, MEASURED)
    assert not [d for d in diags if d.code.startswith("QOS15")], diags
    [host] = policy.hosts  # type: ignore[attr-defined]
    p = plan(policy, host)  # type: ignore[arg-type]
    windows = {n.path.peer: n.window for n in p.needs}
    assert windows == {"se2": 1_359_375, "se3": 1_230_500}
    assert round(windows["se2"] / 1e6, 2) == 1.36 and round(windows["se3"] / 1e6, 2) == 1.23
    rates = {n.path.peer: (n.rate, n.rate_source) for n in p.needs}
    assert rates["se3"] == (460_000_000, "service 'assured' sls.rate")
    # The window the generated settings give every socket, autotuned or sized by the application.
    for window in (autotuned_window(p.settings), explicit_window(p.settings)):
        assert window is not None and window >= 1_360_000 and window >= 1_230_000
    assert p.settings.tcp_rmem == Triple(*STOCK_RMEM) and p.settings.tcp_wmem == Triple(*STOCK_WMEM)
    assert p.settings.rmem_max >= p.settings.wmem_max  # type: ignore[operator]


def test_long_fat_path_sizes_buffers_from_the_formula(tmp_path: Path) -> None:
    policy, _ = policy_of(tmp_path, """\
        hosts:
          dtn:
            platform: linux
            interfaces: {eth0: {speed: 10G}}
            paths: [{peer: far, rtt: 150ms, rate: 10G}]
        """)
    p = plan(policy, policy.hosts[0])  # type: ignore[attr-defined]
    bdp = 10_000_000_000 * 150_000 // 8_000_000
    assert p.needs[0].window == bdp == 187_500_000
    assert p.settings.tcp_rmem.max == p.settings.tcp_wmem.max == HEADROOM * bdp  # type: ignore[union-attr]
    assert p.settings.rmem_max == p.settings.wmem_max == HEADROOM * bdp
    assert "10000 Mbit/s x 150 ms / 8 = 187500000 B window, x 2 headroom = 375000000 B" in p.values[2].why


def test_generated_receive_never_below_an_overridden_send(tmp_path: Path) -> None:
    policy, diags = policy_of(tmp_path, MEASURED + "    overrides: {tcp_wmem: [4096, 16384, 64MB], wmem_max: 64MB}\n")
    p = plan(policy, policy.hosts[0])  # type: ignore[attr-defined]
    assert p.settings.tcp_rmem.max == 64_000_000 and p.settings.rmem_max == 64_000_000  # type: ignore[union-attr]
    assert not only(diags, "QOS150")


def test_current_values_above_stock_are_never_lowered(tmp_path: Path) -> None:
    policy, _ = policy_of(tmp_path, MEASURED + "    current: {tcp_rmem: 4096 131072 67108864, rmem_max: 128MiB}\n")
    p = plan(policy, policy.hosts[0])  # type: ignore[attr-defined]
    assert p.settings.tcp_rmem.max == 67_108_864 and p.settings.rmem_max == 128 * 2**20  # type: ignore[union-attr]
    assert "kept at the host's current" in p.values[0].why


def test_service_requirements_for_the_sls(tmp_path: Path) -> None:
    policy, _ = policy_of(tmp_path, MEASURED)
    [(host, need)] = service_requirements(policy, "assured")  # type: ignore[arg-type]
    assert host.name == "se1" and need.window == 1_230_500 and need.buffer == 2_461_000


# -- QOS157: the 2009 default distribution ------------------------------------


def test_2009_default_buffers_cap_throughput_with_the_cap_in_mbit(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + LEGACY_2009)
    caps = only(diags, "QOS157")
    assert [d.severity for d in caps] == [Severity.WARNING, Severity.WARNING]
    first, second = sorted(caps, key=lambda d: d.message)
    # autotuned sockets: min(174760, 131072) / 2 = 65536 B; SO_RCVBUF sockets: 131071 B
    assert first.message == (
        "host 'se1' current buffers cap TCP on path se1 -> se2 (RTT 14.5 ms) at 36.2 Mbit/s, 4.8% of the expected "
        "750 Mbit/s: cap = window / RTT = 65536 B / 14.5 ms (autotuned sockets: window = min(tcp_rmem max, "
        "tcp_wmem max) / 2); applications that set SO_RCVBUF/SO_SNDBUF (GridFTP, iperf -w): window = "
        "min(rmem_max, wmem_max) = 131071 B, cap 72.3 Mbit/s")
    assert "at 24.5 Mbit/s, 5.3% of the expected 460 Mbit/s" in second.message and "cap 49 Mbit/s" in second.message
    assert "needs a window of 1359375 B" in (first.hint or "")
    # at the policy line of the limiting value: current.tcp_wmem (131072 < 174760)
    assert first.location is not None
    text = (tmp_path / "p.yaml").read_text().splitlines()
    assert text[first.location.line - 1].strip().startswith("tcp_wmem:")


def test_2009_sl5_autotuning_fine_but_gridftp_capped(tmp_path: Path) -> None:
    """Linux 2.6.18 already autotuned to 4 MB, but kept net.core.rmem_max at 131071: sockets sized by the
    application (GridFTP) stayed at 128 KB -- what the 2009 deployment's four sysctl lines fixed."""
    diags = diags_of(tmp_path, MEASURED + """\
    current:
      rmem_max: 131071
      wmem_max: 131071
      tcp_rmem: [4096, 87380, 4194304]
      tcp_wmem: [4096, 16384, 4194304]
""")
    caps = sorted(only(diags, "QOS157"), key=lambda d: d.message)
    assert len(caps) == 2
    assert "at 72.3 Mbit/s, 9.6% of the expected 750 Mbit/s" in caps[0].message
    assert "applications that set SO_RCVBUF/SO_SNDBUF" in caps[0].message
    assert "autotuned sockets: window = min(tcp_rmem max, tcp_wmem max) / 2 = 2097152 B, cap 1157" in caps[0].message


def test_2009_fix_lines_no_longer_capped(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + """\
    current:
      rmem_max: 8738000
      wmem_max: 8738000
      tcp_rmem: 8192 4369000 8738000
      tcp_wmem: 8192 4369000 8738000
""")
    assert not only(diags, "QOS157")


# -- QOS150-QOS156, QOS158, QOS159 ---------------------------------------------


def test_receive_smaller_than_send_warns(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + """\
    overrides:
      rmem_max: 6MB
      wmem_max: 8MB
      tcp_rmem: [4096, 131072, 6MB]
      tcp_wmem: [4096, 16384, 8MB]
""")
    found = only(diags, "QOS150")
    assert len(found) == 2 and all(d.severity is Severity.WARNING for d in found)
    assert "receive buffer rmem_max 6000000 B is smaller than the send buffer wmem_max 8000000 B" in found[0].message
    assert "6 MB receive / 8 MB send" in (found[0].hint or "")
    current = diags_of(tmp_path, MEASURED + "    current: {rmem_max: 6MB, wmem_max: 8MB}\n")
    assert "host 'se1' current: receive buffer" in only(current, "QOS150")[0].message


def test_autotuning_max_below_bdp_is_an_error(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + "    overrides: {tcp_rmem: [4096, 131072, 2MB]}\n")
    [d] = only(diags, "QOS151")
    assert d.severity is Severity.ERROR
    assert "window of 1000000 B (max / 2), below the 1359375 B bandwidth-delay product of path se1 -> se2" in d.message
    assert "capped at 551.7 Mbit/s instead of 750 Mbit/s" in d.message
    assert "at least 2718750" in (d.hint or "")


def test_core_max_below_bdp_warns(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + "    overrides: {rmem_max: 1MB, wmem_max: 1MB}\n")
    found = only(diags, "QOS152")
    assert len(found) == 2 and "capped at 551.7 Mbit/s" in found[0].message


def test_values_the_kernel_refuses(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + """\
    overrides:
      rmem_max: 3GB
      wmem_max: 1000
      tcp_rmem: [0, 131072, 6MB]
""")
    found = only(diags, "QOS153")
    assert len(found) == 3 and all(d.severity is Severity.ERROR for d in found)
    assert any(f"rmem_max 3000000000 is outside what the kernel accepts (2304..{INT_MAX})" in d.message for d in found)
    assert any("wmem_max 1000" in d.message for d in found)
    assert any("tcp_rmem '0 131072 6000000' has 0" in d.message for d in found)


@pytest.mark.parametrize("change", [("rtt: 14.5ms, rate: 750M", "rtt: 65535ms, rate: 200M"),
                                    ("{speed: 1G}", "{speed: 1000T}")])
def test_path_buffer_beyond_int_max_is_a_capability_error_not_qos199(tmp_path: Path, change: tuple[str, str]) -> None:
    """Linux cannot hold a socket buffer above INT_MAX: a located QOS145, and compile writes nothing (no QOS199)."""
    text = MEASURED.replace(*change)
    if "1000T" in text:
        text = text.replace("rate: 750M, ", "")
    diags = diags_of(tmp_path, text)
    found = only(diags, "QOS145")
    assert found and all(d.severity is Severity.ERROR for d in found), codes(diags)
    assert f"more than the largest socket buffer Linux accepts ({INT_MAX} B)" in found[0].message
    assert found[0].location is not None and found[0].location.line == 25  # the first path, se1 -> se2
    assert not only(diags, "QOS199")
    result = api.validate(tmp_path / "p.yaml")
    assert not result.ok and not only(result.diagnostics, "QOS199")


def test_triple_out_of_order(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + "    overrides: {tcp_wmem: 4194304 16384 4096}\n")
    [d] = only(diags, "QOS154")
    assert d.severity is Severity.ERROR and "'4194304 16384 4096' is not ordered min <= default <= max" in d.message


def test_service_rate_no_host_reaches(tmp_path: Path) -> None:
    # se1's own buffers are fine, but its declared peer keeps only 256 KB windows
    diags = diags_of(tmp_path, """\
        hosts:
          se1:
            platform: linux
            interfaces: {eth0: {speed: 1G}}
            paths: [{peer: se3, rtt: 21.4ms, service: assured}]
          se3:
            platform: linux
            interfaces: {eth0: {speed: 1G}}
            overrides:
              {rmem_max: 256KB, wmem_max: 256KB, tcp_rmem: [4096, 87380, 512KB], tcp_wmem: [4096, 16384, 512KB]}
        """)
    [d] = only(diags, "QOS155")
    assert d.severity is Severity.WARNING
    assert d.message == ("service 'assured' promises 460 Mbit/s, but no declared host can reach it at its RTT: the "
                         "best is 95.7 Mbit/s on path se1 -> se3 (RTT 21.4 ms), limited by se3's buffers")
    assert d.location is not None and d.location.line == 12  # services.assured.sls.rate


def test_path_faster_than_the_host(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED.replace("{speed: 1G}", "{speed: 100M}"))
    found = only(diags, "QOS156")
    assert len(found) == 2 and "faster than the host's fastest interface (100 Mbit/s)" in found[0].message
    assert only(diags, "QOS155")  # and so the assured rate is out of reach


def test_undefined_service_with_hint(tmp_path: Path) -> None:
    [d] = only(diags_of(tmp_path, MEASURED.replace("service: assured", "service: asured")), "QOS158")
    assert d.message == "path se1 -> se3 refers to service 'asured', which is not defined"
    assert (d.hint or "").startswith("did you mean 'assured'?")


def test_nothing_to_size_from(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, """\
        hosts:
          idle:
            platform: linux
            interfaces: {eth0: {speed: 1G}}
          zero:
            platform: linux
            interfaces: {eth0: {speed: 1G}}
            paths: [{peer: x, rtt: 0ms, rate: 1G}]
        """)
    assert sorted(d.message.split(":")[0] for d in only(diags, "QOS159")) == [
        "host 'idle' declares no paths and no overrides", "path zero -> x has a zero RTT"]


def test_reference_policy_is_clean_and_the_untuned_example_shows_the_legacy_caps() -> None:
    result = api.validate(ROOT / "policies" / "grid-hosts.yaml")
    assert result.ok and result.diagnostics == []
    result = api.validate(ROOT / "examples" / "grid-hosts-untuned.yaml")
    assert result.ok
    assert codes(result.diagnostics) == ["QOS157", "QOS157"]
    assert all("se4.grid.example" in d.message for d in result.diagnostics)


# -- schema and builder --------------------------------------------------------


def test_unknown_key_did_you_mean(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, MEASURED + "    overrides: {rmem-max: 16MB}\n")
    [d] = diags
    assert d.code == "QOS010" and d.hint == "did you mean 'rmem_max'?"


@pytest.mark.parametrize(("value", "code"), [("[4096, 87380]", "QOS013"), ("4096 87380", "QOS013"),
                                             ("4096 87380 4Mb", "QOS014"), ("[4096, 87380, 4MB]", None)])
def test_triple_forms(tmp_path: Path, value: str, code: str | None) -> None:
    diags = diags_of(tmp_path, MEASURED + f"    overrides: {{tcp_rmem: {value}}}\n")
    assert [d.code for d in diags if d.is_error] == ([code] if code else [])


def test_host_needs_platform_and_interface_speed(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, "hosts:\n  h:\n    interfaces: {eth0: {txqueuelen: 5000}}\n")
    assert sorted(d.message for d in diags) == ["missing required key 'platform' in hosts.h",
                                                "missing required key 'speed' in hosts.h.interfaces.eth0"]


def test_unsafe_interface_name_rejected(tmp_path: Path) -> None:
    diags = diags_of(tmp_path, 'hosts:\n  h:\n    platform: linux\n    interfaces: {"eth0;reboot": {speed: 1G}}\n')
    assert codes(diags) == ["QOS013"]


# -- selection -----------------------------------------------------------------


def test_api_selects_hosts_for_linux_host_only(tmp_path: Path) -> None:
    policy, _ = policy_of(tmp_path, MEASURED)
    pairs = api.select(policy)  # type: ignore[arg-type]
    assert [(t.name, u.name) for t, u in pairs] == [("linux-host", "se1")]
    assert api.select(policy, target_names=["linux-tc"]) == []  # type: ignore[arg-type]
    assert api.select(policy, devices=["nope"]) == []  # type: ignore[arg-type]
    result = api.validate(tmp_path / "p.yaml")
    outputs = api.compile_policy(result, devices=["se1"])
    assert [o.path for o in outputs] == ["linux-host/se1/99-qosc-tcp.conf", "linux-host/se1/txqueuelen.sh"]

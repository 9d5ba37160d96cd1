"""linux-host target: golden files, self-check, and the drop-in applied to a real kernel.

The real-kernel tests create a scratch network namespace, apply the generated
sysctl drop-in inside it with `sysctl -p` and read every value back.  Keys
that are global on the running kernel (not per network namespace) cannot be
exercised there: they are detected and reported (as a KernelScopeReport
warning and in the test's properties), never silently skipped, and the host's
own values are saved first and restored, so the machine is left untouched.
Without root or namespaces the tests skip with the reason; with CI=true they fail.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import shutil
import stat
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from qosc import api, tree
from qosc.hosts import cap_for
from qosc.targets.linux_host.grammar import SHELL, SYSCTL
from qosc.targets.registry import targets
from qosc.tree import Document, group, integer, kw, size, stmt

ROOT = Path(__file__).resolve().parents[4]
POLICY = ROOT / "policies" / "grid-hosts.yaml"
UNTUNED = ROOT / "examples" / "grid-hosts-untuned.yaml"
"""The bundled hosts and se4, which declares the `current:` buffers of a 2009 default distribution."""
SE1 = "linux-host/se1.grid.example/"
SE2 = "linux-host/se2.grid.example/"


class KernelScopeReport(UserWarning):
    """Which sysctl keys of the drop-in are global on this kernel (so not exercised in the namespace)."""


def compiled(path: Path = POLICY) -> dict[str, str]:
    result = api.validate(path)
    assert result.ok, result.diagnostics
    outputs = api.compile_policy(result, ["linux-host"])
    assert outputs, result.diagnostics
    return {o.path: o.text for o in outputs}


def dropin_values(text: str) -> dict[str, str]:
    """key -> value of every assignment in a sysctl.d file."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(" = ")
            out[key] = value
    return out


# -- rendering -----------------------------------------------------------------


def test_registered() -> None:
    target = targets()["linux-host"]
    assert target.platforms == ("linux-host",)


def test_golden_grid_hosts(golden) -> None:  # type: ignore[no-untyped-def]
    files = compiled()
    assert sorted(files) == [SE1 + "99-qosc-tcp.conf", SE1 + "txqueuelen.sh", SE2 + "99-qosc-tcp.conf",
                             SE2 + "txqueuelen.sh"]
    for path, text in files.items():
        golden(path.split("/", 1)[1], text)


def test_measured_paths_get_their_windows_from_the_dropin() -> None:
    """14.5 ms at 750 Mbit/s needs 1.36 MB in flight, 21.4 ms at 460 Mbit/s 1.23 MB: the installed values give more."""
    for host in (SE1, SE2):
        text = compiled()[host + "99-qosc-tcp.conf"]
        v = dropin_values(text)
        rmem, wmem = (int(v[k].split()[2]) for k in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"))
        autotuned = min(rmem, wmem) // 2  # half of a socket buffer is window (tcp_adv_win_scale = 1)
        explicit = min(int(v["net.core.rmem_max"]), int(v["net.core.wmem_max"]))  # SO_RCVBUF is doubled
        for window in (autotuned, explicit):
            assert window >= 1_360_000 and window >= 1_230_000
            assert cap_for(window, 14_500) >= 750_000_000 and cap_for(window, 21_400) >= 460_000_000
        assert "750 Mbit/s x 14.5 ms / 8 = 1359375 B window, x 2 headroom = 2718750 B" in text
        assert "460 Mbit/s x 21.4 ms / 8 = 1230500 B window, x 2 headroom = 2461000 B" in text
        assert int(v["net.core.rmem_max"]) >= int(v["net.core.wmem_max"]) and rmem >= wmem
    se1 = dropin_values(compiled()[SE1 + "99-qosc-tcp.conf"])
    assert se1["net.ipv4.tcp_congestion_control"] == "bbr" and se1["net.core.default_qdisc"] == "fq"
    assert "net.ipv4.tcp_congestion_control" not in dropin_values(compiled()[SE2 + "99-qosc-tcp.conf"])


def test_every_value_says_where_it_came_from() -> None:
    """The first comment above each value names the path and formula, the override, or the value it follows."""
    for host in (SE1, SE2):
        blocks = compiled()[host + "99-qosc-tcp.conf"].split("\n\n")[1:]
        assert len(blocks) >= 4
        for block in blocks:
            why, *_, assignment = block.strip().splitlines()
            assert why.startswith("# ") and " = " in assignment
            key = assignment.partition(" = ")[0]
            if key.startswith("net.ipv4.tcp_") and key.endswith("mem"):
                assert f"# path {host.split('/')[1]} -> " in why and " x 2 headroom = " in why, block
            elif key in ("net.core.rmem_max", "net.core.wmem_max"):
                assert why.startswith("# = the tcp_"), block
            else:
                assert why.startswith("# override from the policy (overrides."), block


def test_installing_the_dropin_clears_the_2009_cap(tmp_path: Path) -> None:
    """Feed se4's generated values back as its `current:` buffers: the QOS157 caps disappear."""
    v = dropin_values(compiled(UNTUNED)["linux-host/se4.grid.example/99-qosc-tcp.conf"])
    example = UNTUNED.read_text()
    text = POLICY.read_text() + example[example.index("  se4.grid.example:\n"):]  # the bundled hosts, then se4
    fixed = text.replace("""\
      rmem_max: 131071
      wmem_max: 131071
      tcp_rmem: 4096 87380 174760
      tcp_wmem: 4096 16384 131072""", f"""\
      rmem_max: {v['net.core.rmem_max']}
      wmem_max: {v['net.core.wmem_max']}
      tcp_rmem: {v['net.ipv4.tcp_rmem']}
      tcp_wmem: {v['net.ipv4.tcp_wmem']}""")
    assert fixed != text
    path = tmp_path / "fixed.yaml"
    path.write_text(fixed)
    assert api.validate(path).diagnostics == []


def test_txqueuelen_script() -> None:
    script = compiled()[SE1 + "txqueuelen.sh"]
    commands = [line for line in script.splitlines() if line.startswith("ip ")]
    assert commands == ["ip link set dev eth0 txqueuelen 2000", "ip link set dev eth1 txqueuelen 10000"]
    assert script.startswith("#!/bin/sh\n") and "\nset -e\n" in script


def _sysctl(*statements) -> Document:  # type: ignore[no-untyped-def]
    return Document("h/99-qosc-tcp", "sysctl", tuple(statements))


def _triple(a: int, b: int, c: int):  # type: ignore[no-untyped-def]
    return group((size(a), size(b), size(c)))


def test_grammar_accepts_what_the_target_writes_and_refuses_the_rest() -> None:
    good = _sysctl(stmt(kw("net.ipv4.tcp_rmem"), _triple(4096, 131072, 6291456)),
                   stmt(kw("net.core.default_qdisc"), tree.name("fq")), stmt(kw("net.core.rmem_max"), size(2304)))
    assert SYSCTL.check(good) == []
    refused = {
        "unknown key": _sysctl(stmt(kw("kernel.panic"), size(1))),
        "out of order": _sysctl(stmt(kw("net.ipv4.tcp_rmem"), _triple(6291456, 131072, 4096))),
        "below SOCK_MIN_RCVBUF": _sysctl(stmt(kw("net.core.rmem_max"), size(2303))),
        "above INT_MAX": _sysctl(stmt(kw("net.core.wmem_max"), size(2**31))),
        "two values": _sysctl(stmt(kw("net.ipv4.tcp_wmem"), size(1), size(2))),
        "set twice": _sysctl(stmt(kw("net.core.rmem_max"), size(4096)), stmt(kw("net.core.rmem_max"), size(8192))),
    }
    for why, doc in refused.items():
        found = SYSCTL.check(doc)
        assert found, why
        assert all(v.source is not None or "not a sysctl.d statement" in v.message for v in found), why
    script = Document("h/txqueuelen", "sh", (stmt("set", "-e"), stmt("ip", "link", "set", "dev", tree.name("eth0"),
                                                                        "txqueuelen", integer(2000))))
    assert SHELL.check(script) == []
    for bad in (stmt("rm", "-rf", "/"), stmt("ip", "link", "set", "dev", tree.name("a/b"), "txqueuelen", integer(1)),
                stmt("ip", "link", "set", "dev", tree.name("averyveryverylongname"), "txqueuelen", integer(1)),
                stmt("ip", "link", "set", "dev", tree.name("eth0"), "txqueuelen", integer(-1))):
        assert SHELL.check(Document("h/txqueuelen", "sh", (bad,))), bad


def test_cli_compile_writes_an_executable_script(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "qosc", "compile", str(POLICY), "-o", str(tmp_path), "--target",
                           "linux-host"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "warning[" not in proc.stderr  # the bundled policy asks for nothing
    for host in (SE1, SE2):
        assert (tmp_path / host / "txqueuelen.sh").stat().st_mode & stat.S_IXUSR
        assert (tmp_path / host / "99-qosc-tcp.conf").read_text() == compiled()[host + "99-qosc-tcp.conf"]
    proc = subprocess.run([sys.executable, "-m", "qosc", "compile", str(UNTUNED), "-o", str(tmp_path / "untuned"),
                           "--target", "linux-host"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("warning[QOS157]") == 2  # the legacy host's caps are shown, and do not block the compile


# -- real kernel ---------------------------------------------------------------


def _unavailable() -> str | None:
    if not sys.platform.startswith("linux"):
        return "needs Linux network namespaces"
    if os.geteuid() != 0:
        return "needs root to create a network namespace (ip netns add)"
    if shutil.which("ip") is None:
        return "needs iproute2 (ip)"
    return None


@pytest.fixture
def netns() -> Iterator[str]:
    """A scratch network namespace, deleted afterwards; skip (or, with CI=true, fail) when impossible."""
    name = f"qosc-lh-{os.getpid()}-{secrets.token_hex(3)}"
    reason = _unavailable()
    if reason is None:
        proc = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            reason = f"ip netns add failed: {proc.stderr.strip()}"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the real-kernel test cannot run: {reason}")
        pytest.skip(reason)
    try:
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def proc_path(key: str) -> Path:
    return Path("/proc/sys") / key.replace(".", "/")


def host_read(key: str) -> str | None:
    try:
        return " ".join(proc_path(key).read_text().split())
    except OSError:
        return None


def host_write(key: str, value: str) -> None:
    proc_path(key).write_text(value + "\n")


def in_ns(ns: str, *cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", "netns", "exec", ns, *cmd], capture_output=True, text=True, timeout=60, check=False)


def ns_read(ns: str, key: str) -> str | None:
    proc = in_ns(ns, "cat", str(proc_path(key)))
    return " ".join(proc.stdout.split()) if proc.returncode == 0 else None


def ns_write(ns: str, key: str, value: str) -> tuple[bool, str]:
    proc = in_ns(ns, "sh", "-c", 'printf "%s\\n" "$1" > "$2"', "sh", value, str(proc_path(key)))
    return proc.returncode == 0, proc.stderr.strip().rpartition(": ")[2]


@dataclass
class Scope:
    key: str
    scope: str  # "namespace" or "global"
    reason: str


def _sentinel(ns: str, key: str, host_value: str, ns_value: str) -> str | None:
    """A value different from both the host's and the namespace's, to see where a write lands."""
    if key == "net.ipv4.tcp_congestion_control":
        allowed = (ns_read(ns, "net.ipv4.tcp_allowed_congestion_control") or "").split()
        return next((a for a in allowed if a not in (host_value, ns_value)), None)
    if key == "net.core.default_qdisc":
        return next(q for q in ("pfifo_fast", "fq_codel", "fq") if q not in (host_value, ns_value))
    for step in (4096, 8192):
        value = " ".join(str(int(v) + step) for v in host_value.split())
        if value != ns_value:
            return value
    return None


def probe(ns: str, key: str, host_before: str | None) -> Scope:
    """Is `key` per network namespace on this kernel?  Restores the host's value if a probe write leaked."""
    ns_value = ns_read(ns, key)
    if ns_value is None or host_before is None:
        return Scope(key, "global", "not present inside a network namespace")
    sentinel = _sentinel(ns, key, host_before, ns_value)
    if sentinel is None:
        return Scope(key, "namespace", "per network namespace (no second value to probe with)")
    ok, err = ns_write(ns, key, sentinel)
    if host_read(key) != host_before:
        host_write(key, host_before)
        return Scope(key, "global", "a write inside the namespace changed the host's value (restored)")
    if not ok:
        return Scope(key, "global", f"read-only inside a network namespace ({err or 'write refused'})")
    return Scope(key, "namespace", "per network namespace")


def test_dropin_applied_in_a_network_namespace(netns: str, tmp_path: Path,
                                               record_property: Callable[[str, object], None]) -> None:
    text = compiled()[SE1 + "99-qosc-tcp.conf"]
    wanted = dropin_values(text)
    saved = {key: host_read(key) for key in wanted}
    scopes: dict[str, Scope] = {}
    try:
        for key in wanted:
            scopes[key] = probe(netns, key, saved[key])
        refused: dict[str, str] = {}
        cc = wanted.get("net.ipv4.tcp_congestion_control")
        if cc and scopes["net.ipv4.tcp_congestion_control"].scope == "namespace":
            allowed = (ns_read(netns, "net.ipv4.tcp_allowed_congestion_control") or "").split()
            if cc not in allowed:
                refused["net.ipv4.tcp_congestion_control"] = (
                    f"{cc} is not in net.ipv4.tcp_allowed_congestion_control ({' '.join(allowed)}), the only "
                    "algorithms a non-initial namespace may choose")
        local = [k for k in wanted if scopes[k].scope == "namespace" and k not in refused]
        # Apply exactly the drop-in's lines for the per-namespace keys, with sysctl -p as an admin would.
        part = tmp_path / "99-qosc-tcp.conf"
        part.write_text("".join(line + "\n" for line in text.splitlines()
                                if line.startswith("#") or line.partition(" = ")[0] in local))
        if shutil.which("sysctl"):
            proc = in_ns(netns, "sysctl", "-p", str(part))
            assert proc.returncode == 0, proc.stderr
        else:  # procps missing: write /proc/sys directly
            for key in local:
                ok, err = ns_write(netns, key, wanted[key])
                assert ok, f"{key}: {err}"
        for key in local:
            assert ns_read(netns, key) == " ".join(wanted[key].split()), key
        for key in wanted:
            assert host_read(key) == saved[key], f"{key} changed on the host"
    finally:
        for key, value in saved.items():
            if value is not None and host_read(key) != value:
                host_write(key, value)

    global_keys = [s for s in scopes.values() if s.scope == "global"]
    report = (f"linux-host drop-in on Linux {platform.release()}: applied and read back in a network namespace: "
              f"{', '.join(local) or 'none'}; global on this kernel, not exercised in the namespace: "
              + (", ".join(f"{s.key} ({s.reason})" for s in global_keys) or "none")
              + "".join(f"; refused: {k} ({why})" for k, why in refused.items()))
    warnings.warn(report, KernelScopeReport, stacklevel=1)
    print(report)
    record_property("linux_host_global_keys", json.dumps({s.key: s.reason for s in global_keys}))
    # Every key of the drop-in is accounted for, and the report names each global one.
    assert set(scopes) == set(wanted)
    for s in global_keys:
        assert s.key in report
    # Per network namespace since Linux 4.15; global since always (registered for the initial namespace only).
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_congestion_control"):
        assert scopes[key].scope == "namespace", scopes[key]
    assert scopes["net.core.default_qdisc"].scope == "global"
    assert {k for k, s in scopes.items() if s.scope == "namespace"} - set(refused) == set(local)


def test_txqueuelen_script_in_a_network_namespace(netns: str, tmp_path: Path) -> None:
    script = tmp_path / "txqueuelen.sh"
    script.write_text(compiled()[SE1 + "txqueuelen.sh"])
    for name in ("eth0", "eth1"):
        proc = subprocess.run(["ip", "-n", netns, "link", "add", name, "type", "veth", "peer", "name", name + "p"],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
    proc = in_ns(netns, "sh", str(script))
    assert proc.returncode == 0, proc.stderr
    links = json.loads(subprocess.run(["ip", "-n", netns, "-j", "link", "show"], capture_output=True, text=True,
                                      check=True).stdout)
    qlen = {link["ifname"]: link.get("txqlen") for link in links}
    assert qlen["eth0"] == 2000 and qlen["eth1"] == 10000
    assert qlen["eth0p"] == 1000  # the peer keeps the kernel default: only the named interfaces change


@pytest.mark.slow
def test_fixture_fails_loudly_in_ci(tmp_path: Path) -> None:
    """With CI=true and no way to create a namespace, the real-kernel tests fail instead of skipping."""
    test = tmp_path / "test_ci.py"
    test.write_text(textwrap.dedent("""\
        import qosc.targets.linux_host.tests.test_linux_host as t
        t._unavailable = lambda: "simulated: no network namespaces"
        from qosc.targets.linux_host.tests.test_linux_host import netns  # noqa: F401

        def test_needs_ns(netns):
            pass
        """))
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], cwd=ROOT,
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1 and "CI=true but the real-kernel test cannot run" in proc.stdout
    env["CI"] = "false"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(test)],
                          cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0 and "simulated: no network namespaces" in proc.stdout

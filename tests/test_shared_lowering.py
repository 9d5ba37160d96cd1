"""Interfaces of equal settings are lowered once per device, and that changes nothing a user can see.

The Cisco and Linux targets reuse the lowering of the first interface of given
settings (Interface.settings(): everything but name and description) for the
others.  These tests compile with and without that reuse and demand the same
bytes and the same diagnostics, show that a per-interface error is still
reported once per interface, and count the lowerings that actually ran.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from qosc import api, pipeline
from qosc.model import Interface
from qosc.pipeline import batch, sharing
from qosc.targets.ios import mqc as cisco_mqc
from qosc.targets.registry import for_platform
from qosc.tree import locate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_scale import generate  # noqa: E402


def compile_all(path: Path) -> tuple[dict[str, str], list[str]]:
    """Every file and every target diagnostic (as text) of a policy, the way compile makes them."""
    result = api.validate(path, with_targets=False)
    assert result.policy is not None
    policy = result.policy
    files: dict[str, str] = {}
    diags: list[str] = []
    for unit, platform in api.all_units(policy):
        for target in for_platform(platform):
            found, lowered = pipeline.lower(target, policy, unit)
            diags += [f"{d.code} {d.severity} {d.message} {d.location}" for d in found]
            if not any(d.is_error for d in found):
                outputs, problems = pipeline.render(target, policy, unit, lowered)
                assert not problems, problems
                files.update((o.path, o.text) for o in outputs)
    return files, diags


def mixed_network(tmp_path: Path) -> Path:
    """A small synthetic network of every platform, with descriptions and speeds that differ per interface."""
    text = generate(12, interfaces=6)  # two interfaces of each profile per device: vary the second of each
    for profile, extra in (("core-10g", "description: uplink"), ("edge-1g", "speed: 100M"),
                           ("core-100g", "mtu: 9000B")):
        parts = text.split(f"{{profile: {profile}}}")
        text = parts[0] + "".join((f"{{profile: {profile}, {extra}}}" if i % 2 else f"{{profile: {profile}}}") + part
                                  for i, part in enumerate(parts[1:]))
    path = tmp_path / "mixed.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "policies").glob("*.yaml")) + ["mixed"])
def test_reuse_gives_the_same_bytes_and_diagnostics(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = mixed_network(tmp_path) if name == "mixed" else ROOT / "policies" / name
    shared = compile_all(path)
    settings = Interface.settings
    monkeypatch.setattr(Interface, "settings", lambda self: (self.name, *settings(self)))  # no two are equal
    alone = compile_all(path)
    assert shared[0] == alone[0]
    assert shared[1] == alone[1]
    assert shared[0], "nothing compiled"
    if name == "mixed":  # every device compiled (none stopped by an error)
        assert len({p.split("/")[1].split(".example.net")[0] for p in shared[0]}) == 12, sorted(shared[0])[:20]


def test_an_error_naming_the_interface_is_reported_for_each_interface(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(textwrap.dedent("""\
        qosc: 1
        name: t
        services:
          best-effort: {kind: best-effort, default: true, queue: {share: 90%, buffer: 10ms}}
          lbe: {kind: lbe, dscp: [cs1], queue: {share: 1%, priority: low}}
        profiles:
          core: {role: core, services: [best-effort, lbe]}
        devices:
          gsr:
            platform: ios-gsr
            interfaces:
              POS0/0: {profile: core}
              POS1/0: {profile: core}
              POS2/0: {profile: core}
        """), encoding="utf-8")
    diags = api.validate(path).diagnostics
    lines = [d.message for d in diags if d.code == "QOS121"]
    assert [n for n in ("POS0/0", "POS1/0", "POS2/0") if any(f"gsr:{n} " in m for m in lines)] == \
        ["POS0/0", "POS1/0", "POS2/0"], lines


def test_each_settings_is_lowered_once_per_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = cisco_mqc.MqcLowering._lower_egress

    def counted(self: Any, iface: Any) -> Any:
        calls.append(iface.name)
        return real(self, iface)

    monkeypatch.setattr(cisco_mqc.MqcLowering, "_lower_egress", counted)
    path = tmp_path / "p.yaml"
    path.write_text(generate(2, interfaces=16), encoding="utf-8")  # r00001 is an ios-gsr of three profiles
    policy = api.validate(path, with_targets=False).policy
    assert policy is not None
    device = policy.device_map["r00001.example.net"]
    (target,) = for_platform(device.platform)
    _found, lowered = pipeline.lower(target, policy, device)
    assert len(device.interfaces) == 16
    assert len({i.settings() for i in device.interfaces}) == 3
    assert len(calls) == 3, calls
    (out,), _ = pipeline.render(target, policy, device, lowered)
    assert out.text.count("service-policy output") == 16


# -- across devices (issue 25) -------------------------------------------------------------------------


def compile_in_memory(path: Path) -> tuple[list[tuple[str, str, tuple[object, ...]]], list[str]]:
    """Every file (path, text, located source map) and every diagnostic of the in-memory compile."""
    done = pipeline.compile_policies([path])
    files = [(o.path, o.text, tuple(locate(x) for x in o.origins)) for o in done.outputs]
    return files, [f"{d.code} {d.severity} {d.message} {d.location} {d.hint}" for d in done.diagnostics]


def many_devices(tmp_path: Path) -> Path:
    """The mixed network, its devices repeated under other names (with blank lines between, so their locations
    differ) and given descriptions, an SR OS device of each platform twice."""
    text = mixed_network(tmp_path).read_text(encoding="utf-8")
    head, _, devices = text.partition("devices:\n")
    blocks = devices.split("\n  r")
    copies = "".join(f"\n\n  c{k}-r" + block.rstrip("\n").replace("{profile: edge-1g}",
                                                                  "{profile: edge-1g, description: copy}", k % 2)
                      for k in range(2) for block in blocks[1:])
    sros = "".join(f"  sr{k}:\n    platform: {plat}\n    description: Nokia\n    interfaces:\n"
                   f"      \"to-core:1/1/c1/1\": {{role: core, speed: 10G}}\n"
                   f"      \"to-edge:1/1/c2/1\": {{role: core, speed: 100G, description: far {k % 2}}}\n"
                   for k, plat in enumerate(("sros-7750", "sros-7750", "sros-7250-ixr", "sros-7250-ixr")))
    path = tmp_path / "many.yaml"
    path.write_text(head + "devices:\n" + devices.rstrip("\n") + copies + "\n" + sros, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "policies").glob("*.yaml")) + ["many"])
def test_devices_of_one_lowering_input_are_lowered_once_and_named_per_device(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sharing across devices gives the bytes, the source maps and the diagnostics of lowering each device."""
    path = many_devices(tmp_path) if name == "many" else ROOT / "policies" / name
    lowered: list[str] = []
    for target in {t.name: t for t in for_platform_all()}.values():
        real = type(target).lower

        def counted(self: Any, policy: Any, unit: Any, data: Any, real: Any = real) -> Any:
            lowered.append(unit.name)
            return real(self, policy, unit, data)

        monkeypatch.setattr(type(target), "lower", counted)
    shared = compile_in_memory(path)
    shared_lowerings = len(lowered)
    lowered.clear()
    monkeypatch.setattr(batch, "signature", lambda *_: None)  # (batch.process looks it up there)
    alone = compile_in_memory(path)
    assert shared == alone
    assert shared[0], "nothing compiled"
    if name == "many":
        assert shared_lowerings <= len(lowered) - 12, (shared_lowerings, len(lowered))  # the c0 copies: none
        assert sharing.PLACEHOLDER not in repr(shared)
        assert any("c0-r00001" in d for d in shared[1]), "the copies' diagnostics name them"


def for_platform_all() -> list[Any]:
    from qosc.targets.registry import targets

    return list(targets().values())

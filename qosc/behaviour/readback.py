"""Reading configurations back: parse + interpret with the device's target, and the verify and equiv flows.

`read()` turns a configuration text into behaviour with the target of its
platform (its parser builds the same statement tree the serializers write,
its interpreter says what that tree does).  `verify()` compares what each
device runs with what the policy compiles to; `equiv()` compares two
configurations, of the same vendor or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from qosc import dscp as dscp_mod
from qosc import pipeline
from qosc.behaviour import intent
from qosc.behaviour.compare import ALL_UNITS, Finding, Tolerance, compare
from qosc.behaviour.model import Device, Interface
from qosc.behaviour.ownership import ownership, stale
from qosc.configtext import read_bounded
from qosc.diagnostics import Diagnostic, Severity, error
from qosc.errors import InputError, VerificationUnavailable
from qosc.model import Device as ModelDevice
from qosc.model import Policy
from qosc.targets.base import Target
from qosc.targets.platform import PlatformBase
from qosc.targets.registry import for_platform, platform, platforms, targets


@dataclass
class Read:
    """One configuration read back: its behaviour (None when it could not be read) and what was found."""

    source: str
    behaviour: Device | None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def reader(platform_name: str) -> tuple[Target, PlatformBase] | None:
    """The target that reads configurations of a platform (the first of its targets that can)."""
    data = platform(platform_name)
    if data is None:
        return None
    for target in for_platform(platform_name):
        if target.reads:
            return target, data
    return None


def sniff(text: str) -> list[tuple[str, str]]:
    """(platform, format) pairs whose target recognises the text, for import without --platform."""
    found: list[tuple[str, str]] = []
    for target in targets().values():
        fmt = target.sniff(text)
        if fmt is not None:
            found.extend((name, fmt) for name in target.platforms)
    return found


def read(text: str, source: str, platform_name: str, name: str | None = None, fmt: str | None = None) -> Read:
    """Parse and interpret one configuration as a device of `platform_name` (named `name`, else after the file)."""
    pair = reader(platform_name)
    if pair is None:
        known = ", ".join(p for p in platforms() if reader(p) is not None) or "none yet"
        return Read(source, None, [error("QOS170", f"qosc cannot read {platform_name} configurations back",
                                         None, f"platforms that can: {known}")])
    target, data = pair
    try:
        document = target.parse(text, source, data, fmt)
    except InputError as exc:
        return Read(source, None, exc.diagnostics)
    device, diagnostics = target.interpret(document, data)
    if device.platform is None:
        device = replace(device, platform=platform_name)
    if name is not None and device.name != name:
        device = replace(device, name=name)
    return Read(source, device, diagnostics)


def read_file(path: str, platform_name: str, name: str | None = None, fmt: str | None = None) -> Read:
    """read() of a file: at most the readers' size limit is read, a byte that is not UTF-8 is named at its line."""
    try:
        text = read_bounded(path)
    except InputError as exc:
        return Read(path, None, exc.diagnostics)
    return read(text, path, platform_name, name or Path(path).name.split(".")[0], fmt)


@dataclass
class Verified:
    """verify's result: per device the differences between what it runs and what the policy compiles to."""

    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    """The devices verified (their configuration read and compared)."""
    unread: list[str] = field(default_factory=list)
    """The devices asked for whose configuration could not be read: not verified."""
    invalid: bool = False
    """The policy does not validate: nothing verified."""
    ownership: dict[str, str] = field(default_factory=dict)
    """Device -> 'qosc', 'takeover' or 'unknown' (qosc.behaviour.compare.ownership)."""

    @property
    def drift(self) -> bool:
        return bool(self.findings)


def verify(policy_path: str, configs: Mapping[str, str], texts: Mapping[str, str] | None = None,
           tolerance: Tolerance | None = None) -> Verified:
    """Compare each device's configuration (a file, or text read from the device) with the policy.

    `configs`: device name -> configuration file; `texts`: device name ->
    configuration text already read (e.g. from the device by its push driver).
    """
    out = Verified()
    # the policy's own checks, and the target checks of the verified devices only: another device's warnings
    # (or errors) are not this verification's business
    result, _, targets_ok = pipeline.validate_stages(policy_path)
    wanted = {**{d: ("file", p) for d, p in configs.items()}, **{d: ("text", t) for d, t in (texts or {}).items()}}
    if result.policy is not None and targets_ok:
        for verified in (d for d in result.policy.devices if d.name in wanted):
            for target in for_platform(verified.platform):
                result.diagnostics.extend(pipeline.lower(target, result.policy, verified)[0])
    result.diagnostics = sorted(set(result.diagnostics), key=Diagnostic.sort_key)
    out.diagnostics.extend(result.diagnostics)
    if not result.ok or result.policy is None:
        out.invalid = True
        return out
    policy = result.policy
    for name, (kind, value) in wanted.items():
        dev = policy.device_map.get(name)
        if dev is None:
            out.diagnostics.append(error("QOS102", f"device {name} is not in {policy_path}", None,
                                         f"devices: {', '.join(policy.device_map)}"))
            continue
        found = read_file(value, dev.platform, name) if kind == "file" else read(value, f"{name} (running)",
                                                                                 dev.platform, name)
        out.diagnostics.extend(found.diagnostics)
        if found.behaviour is None:
            out.unread.append(name)
            continue
        out.devices.append(name)
        expected = intent.device(policy, dev)
        try:
            compiled = own_compile(policy, dev)
        except VerificationUnavailable as exc:
            compiled = None
            out.diagnostics.append(Diagnostic(
                "QOS182", Severity.INFO, f"{name}: the policy's own compile cannot be read back here ({exc}); "
                "the configuration is compared with the policy alone: stale objects are not detected, and what "
                "the target renders differently from the policy (warned at compile time) is reported as drift",
                dev.where.loc, "run qosc verify as root on a machine with iproute2 (ip, tc), network namespaces "
                "and a kernel that loads every qdisc and action of the batch"))
        # what the target itself renders differently (warned at compile time: a WRED curve that cannot start
        # above 0 %, precedence matching) is not drift: drift is what the device does beyond its own compile
        known = {_key(f) for f in compare(expected, compiled, tolerance)} if compiled else set()
        drift = [f for f in compare(expected, found.behaviour, tolerance) if _key(f) not in known]
        # a buffer the policy gives in its units (percent, time) and the box in its own (bytes, packets) is
        # compared with the policy's own compile as the box shows it
        seen = {(f.interface, f.subject, f.what) for f in drift}
        drift += [f for f in (compare(compiled, found.behaviour, tolerance, ALL_UNITS) if compiled else [])
                  if f.what == "buffer" and (f.interface, f.subject, f.what) not in seen]
        out.findings.extend(drift)
        if compiled is not None:
            out.ownership[name] = ownership(compiled, found.behaviour)
            out.findings.extend(stale(compiled, found.behaviour))
    return out


def _key(f: Finding) -> tuple[str, str, str, str, str]:
    return f.interface, f.subject, f.what, f.expected, f.found


def own_compile(policy: Policy, dev: ModelDevice) -> Device | None:
    """The policy's own compile of a device, read back as the device would show it (Target.shown: the
    configuration as written, or a Linux kernel's dump of the batch loaded in a scratch namespace), every
    interface of every output in one device.  None where the device's reader reads nothing of it; raises
    VerificationUnavailable where what the device shows cannot be made on this machine."""
    pair = reader(dev.platform)
    if pair is None:
        return None
    target, data = pair
    _, lowered = pipeline.lower(target, policy, dev)
    if lowered is None:
        return None
    read: list[Device] = []
    for o in target.render(lowered):
        text = target.shown(o)
        if text is not None:
            read.append(target.interpret(target.parse(text, o.path, data, None), data)[0])
    if not read:
        return None
    interfaces: dict[tuple[str, int], Interface] = {}
    for d in read:  # the formats of one configuration (JUNOS curly, set) repeat its interfaces: the first counts
        for i in d.interfaces:
            interfaces.setdefault((i.name, i.unit), i)
    return replace(read[0], interfaces=tuple(interfaces.values()), owned=tuple(o for d in read for o in d.owned))


def equiv(a: Read, b: Read, interfaces: Mapping[str, str] | None = None,
          tolerance: Tolerance | None = None) -> tuple[list[Finding], list[Diagnostic]]:
    """Every difference in behaviour between two configurations read back (both directions).

    Interfaces are paired by name and unit; `interfaces` maps names of `a` to
    names of `b` where they differ (a migration to another vendor renames
    every port).  An interface of either side without a partner is reported.
    """
    if a.behaviour is None or b.behaviour is None:
        return [], []
    mapping = dict(interfaces or {})
    back = {v: k for k, v in mapping.items()}
    left = replace(a.behaviour, name=a.source)
    right = replace(b.behaviour, name=a.source, interfaces=tuple(
        replace(i, name=back.get(i.name, i.name)) for i in b.behaviour.interfaces))
    problems = []
    names_a = {(i.name, i.unit) for i in left.interfaces}
    names_b = {(i.name, i.unit) for i in right.interfaces}
    for name, unit in sorted(names_a ^ names_b):
        side = a.source if (name, unit) in names_a else b.source
        problems.append(error("QOS171", f"interface {name} unit {unit} of {side} has no partner on the other side",
                              None, "pair interfaces of different names with --map A_NAME=B_NAME"))
    common = names_a & names_b
    left = replace(left, interfaces=tuple(i for i in left.interfaces if (i.name, i.unit) in common))
    right = replace(right, interfaces=tuple(i for i in right.interfaces if (i.name, i.unit) in common))
    forward = compare(left, right, tolerance, default_queues=True)
    backward = compare(right, left, tolerance, default_queues=True)
    seen = {(f.interface, f.subject, f.what) for f in forward}
    found = forward + [f for f in backward if f.what == "class" and (f.interface, f.subject, f.what) not in seen]
    return [_labelled(f, left, right) for f in found], problems


def _labelled(f: Finding, left: Device, right: Device) -> Finding:
    """A finding with every class it names labelled with the code points the class carries: a configuration
    names its classes after queues (Catalyst queue-3, HTB 1:12) as often as after services, so the code points
    say which service it is."""
    labels: dict[str, str] = {}
    for device in (right, left):  # the left side's classes win: findings name classes as the left knows them
        iface = next((i for i in device.interfaces if i.name == f.interface), None)
        for cls in iface.classes if iface is not None else ():
            codes = [c for c in range(64) if iface.classify[0][c] == cls.name] if iface is not None else []
            label = "the rest" if len(codes) > 8 else " ".join(dscp_mod.name(c) for c in codes) or "no code point"
            labels[cls.name] = f"{cls.name} [{label}]"
    subject = labels.get(f.subject, f.subject)
    if f.subject.startswith("rule ") and "(" in f.subject:
        head, _, rest = f.subject.partition("(")
        name, _, tail = rest.partition(")")
        subject = f"{head}({labels.get(name, name)}){tail}"
    if f.what == "classified to":
        return replace(f, subject=subject, expected=labels.get(f.expected, f.expected),
                       found=labels.get(f.found, f.found))
    return replace(f, subject=subject)

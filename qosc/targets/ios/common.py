"""Lowering pieces shared by the Cisco targets (ios-mqc, catalyst6500).

A command is a list of words and numbers (``["bandwidth", "percent", 4]``),
optionally naming its policy origin (``Cmd``); lower.py makes each a statement
whose words the dialect's grammar types, so tests can compare rendered lines
with it.  The lowerings' base class is lowering.py, the ACLs of edge
classifier rules acl.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

from qosc import dscp as dscp_mod
from qosc.behaviour.intent import curve
from qosc.behaviour.model import Curve
from qosc.diagnostics import Diagnostic, Location, error, info, warning
from qosc.model import (
    Device,
    DropProfile,
    Interface,
    Policer,
    Policy,
    Role,
    Rule,
    Service,
    rate_percent,
)
from qosc.render import quoted
from qosc.tree import At, Origin
from qosc.units import Percent

Command = list[Any]
T = TypeVar("T")


class Cmd(list[Any]):
    """A command that names its own origin in the policy (a policer, a drop profile, a share), where that is more
    precise than its block's (lower.py gives the statement this origin)."""

    def __init__(self, words: Iterable[Any], origin: Origin | None) -> None:
        super().__init__(words)
        self.origin = origin


def at(command: Command, where: Any, *names: str) -> Cmd:
    """The command with its origin: field `names` of an entity's `where`."""
    return Cmd(command, At(where, *names))



@dataclass
class Findings:
    """Diagnostics of one lowering, deduplicated in order of discovery."""

    items: list[Diagnostic] = field(default_factory=list)
    _log: list[Diagnostic] | None = field(default=None, repr=False, compare=False)

    def error(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self._add(error(code, message, loc, hint))

    def warning(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self._add(warning(code, message, loc, hint))

    def info(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        """A platform fact the policy cannot change (qosc.diagnostics.info)."""
        self._add(info(code, message, loc, hint))

    def _add(self, diag: Diagnostic) -> None:
        if self._log is not None:
            self._log.append(diag)
        if diag not in self.items:
            self.items.append(diag)

    def per_settings(self, memo: dict[Any, tuple[T, tuple[Diagnostic, ...]]], iface: Interface, key: Any,
                     compute: Callable[[], T]) -> T:
        """compute() for the first interface of given settings; the same result for the next ones.

        The diagnostics the first computation reported are reported again for
        each reuse.  A result is reused only when none of its diagnostics is
        an error or names the interface: those belong to one interface, and
        the next one must get its own.  The result is shared, never copied:
        callers treat it as read-only.
        """
        hit = memo.get(key)
        if hit is not None:
            for diag in hit[1]:
                self._add(diag)
            return hit[0]
        outer, self._log = self._log, []
        try:
            result = compute()
            emitted = tuple(self._log)
        finally:
            if outer is not None:
                outer.extend(self._log)
            self._log = outer
        if not any(d.is_error or iface.name in d.message for d in emitted):
            memo[key] = (result, emitted)
        return result

    @property
    def failed(self) -> bool:
        return any(d.is_error for d in self.items)


@lru_cache(maxsize=256)
def _ramp_gap(points: tuple[tuple[float, float], ...], interpolate: bool, red: tuple[float, float, float] | None,
              ramp: tuple[float, float, float]) -> tuple[float, float]:
    """(largest gap in drop %, the fill % where) between a profile's curve and a WRED ramp, every 0.5% of fill;
    cached: each class of each interface asks again for the same profile."""
    wanted = curve(DropProfile("", points, interpolate, red))
    runs = Curve(((ramp[0], 0.0), (ramp[1], ramp[2])), interpolate=True, beyond=100.0)
    return max((abs(wanted.at(f / 2) - runs.at(f / 2)), f / 2) for f in range(201))


def ramp_differs(found: Findings, platform: str, dp: DropProfile, ramp: tuple[float, float, float], hint: str) -> None:
    """QOS183 when the one WRED ramp the box runs (0% at min % fill rising to p % at max %, all dropped above it)
    is not the policy's drop curve: a point list, a step curve, or a probability the platform cannot set."""
    low, high, prob = ramp
    gap, fill = _ramp_gap(dp.points, dp.interpolate, dp.red, ramp)
    if gap < 0.5:
        return
    shape = ("min/max/max-probability" if dp.red is not None
             else f"{len(dp.points)} points, {'interpolated' if dp.interpolate else 'a step curve'}")
    found.info("QOS183", f"drop profile '{dp.name}' ({shape}) is not the one linear WRED ramp {platform} runs: "
                  f"0% at {low:g}% fill rising to {prob:.3g}% at {high:g}%, everything above dropped; the policy's "
                  f"curve differs by up to {gap:.3g} points of drop probability (at {fill:g}% fill)",
                  dp.where.at("points", "min"), hint)


IOS_DSCP_KEYWORDS = frozenset({"default", "ef"} | {f"cs{i}" for i in range(1, 8)} |
                              {f"af{x}{y}" for x in range(1, 5) for y in range(1, 4)})
"""The DSCP keywords IOS knows; others (le, voice-admit) are written as numbers."""


def ios_dscp(code: int) -> str:
    """A DSCP as IOS writes it: names where IOS has one (default, ef, af21, cs1), else the number."""
    name = dscp_mod.name(code, "ios")
    return name if name in IOS_DSCP_KEYWORDS else str(code)


def line(command: Sequence[Any]) -> str:
    return " ".join(str(word) for word in command)


def chunks(values: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(values[i:i + size]) for i in range(0, len(values), size)]


def device_services(policy: Policy, device: Device) -> tuple[Service, ...]:
    """Services scheduled on any interface of the device, in policy order."""
    names = {n for i in device.interfaces for n in i.services}
    return tuple(s for s in policy.services if s.name in names)


def descriptions(policy: Policy, device: Device) -> list[str]:
    """The header lines that carry the policy's descriptions of what this device uses (IOS keeps no description
    on a class-map in every dialect, so they are `!` lines, as the interface descriptions are in their blocks)."""
    out = [f"policy: {quoted(policy.description)}"] if policy.description else []
    if device.description:
        out.append(f"device: {quoted(device.description)}")
    services = device_services(policy, device)
    out += [f"service {s.name}: {quoted(s.description)}" for s in services if s.description]
    edge = {i.classifier for i in device.interfaces if i.role is Role.EDGE and i.classifier}
    classifiers = [c for c in policy.classifiers if c.name in edge]
    for c in classifiers:
        if c.description:
            out.append(f"classifier {c.name}: {quoted(c.description)}")
        out += [f"classifier {c.name} rule {r.name}: {quoted(r.description)}" for r in c.rules if r.description]
    policers = {s.policer for s in services} | {r.policer for c in classifiers for r in c.rules}
    out += [f"policer {p.name}: {quoted(p.description)}" for p in policy.policers
            if p.description and p.name in policers]
    profiles = {n for s in services for _, n in s.drop_profiles}
    out += [f"drop profile {d.name}: {quoted(d.description)}" for d in policy.drop_profiles
            if d.description and d.name in profiles]
    return out


def members(policy: Policy, owner: Service, iface: Interface) -> list[Service]:
    """The services carried by `owner`'s queue on `iface`: its sharers (policy order), then itself."""
    on = {s.name for s in policy.services_on(iface)}
    sharers = [s for s in policy.services if s.queue.shared_with and s.name in on and s is not owner
               and policy.queue_owner(s) is owner]
    return sharers + [owner]


def share_percent(service: Service, iface: Interface) -> float | None:
    return rate_percent(service.queue.share, iface.rate)


def is_integral(value: float) -> bool:
    return abs(value - round(value)) < 1e-9


def sanitize(name: str) -> str:
    """A name IOS accepts everywhere (letters, digits, - _ .), from an interface name or the like."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name).strip("-") or "x"


def unique_names(prefix: str, bodies: Sequence[Any], keys: Sequence[str]) -> list[str]:
    """Name equal bodies alike: `prefix` when all are equal, else `prefix-key` of the first user."""
    shown: dict[int, str] = {}  # id -> repr: interfaces of equal settings share one body object
    texts = [shown[id(b)] if id(b) in shown else shown.setdefault(id(b), repr(b)) for b in bodies]
    if len(set(texts)) <= 1:
        return [prefix] * len(bodies)
    first: dict[str, str] = {}
    return [first.setdefault(text, f"{prefix}-{sanitize(key)}") for text, key in zip(texts, keys, strict=True)]


# -- policers ---------------------------------------------------------------

def mqc_action(kind: str, dscp: int | None, mark: int | None) -> Command:
    """One MQC police action; a plain transmit becomes set-dscp-transmit when the class must mark."""
    if kind == "drop":
        return ["drop"]
    if kind == "remark" and dscp is not None:
        return ["set-dscp-transmit", ios_dscp(dscp)]
    return ["set-dscp-transmit", ios_dscp(mark)] if mark is not None else ["transmit"]


def mqc_police(p: Policer, mark: int | None = None, positional: bool = False) -> Command:
    """`police cir <bit/s> bc <bytes> [pir <bit/s> be <bytes> | be <bytes>] conform-action ...`, or where
    `positional` the classic form `police <bit/s> <burst-normal> <burst-max> conform-action ...` (IOS before
    two-rate policing, 12.2(4)T: the GSR's 12.0S), whose burst-max is the excess bucket of a single-rate
    three-colour policer and equals burst-normal for a two-colour one (no excess burst).  A two-rate policer has
    no positional form: the caller refuses it (QOS132)."""
    cmd: Command
    if positional:
        cmd = ["police", p.cir, p.cbs, p.ebs if p.ebs is not None else p.cbs]
    else:
        cmd = ["police", "cir", p.cir, "bc", p.cbs]
        if p.pir is not None and p.pbs is not None:
            cmd += ["pir", p.pir, "be", p.pbs]
        elif p.ebs is not None:
            cmd += ["be", p.ebs]
    cmd += ["conform-action", *mqc_action(p.conform.kind, p.conform.dscp, mark)]
    cmd += ["exceed-action", *mqc_action(p.exceed.kind, p.exceed.dscp, mark)]
    if p.colours == 3 and p.violate is not None:
        cmd += ["violate-action", *mqc_action(p.violate.kind, p.violate.dscp, mark)]
    return at(cmd, p.where)


def check_policer(p: Policer, found: Findings, platform: str) -> None:
    if p.color_aware:
        found.warning("QOS124", f"policer '{p.name}' is colour-aware, but qosc renders Cisco policers colour-blind "
                      f"on {platform}", p.where.at("color-aware"),
                      "remove color-aware, or police where the previous marking is trusted")


def policer_users(policy: Policy, iface: Interface, rules: Iterable[Rule], found: Findings) -> None:
    """Warn when one service policer would be instantiated by several classes of one interface."""
    count: dict[str, int] = {}
    for r in rules:
        service = policy.service_map.get(r.service)
        name = r.policer or (service.policer if service else None)
        if name:
            count[name] = count.get(name, 0) + 1
    for name, n in count.items():
        if n > 1 and name in policy.policer_map:
            found.warning("QOS130", f"policer '{name}' is used by {n} classifier rules on {iface.name}; each class "
                          "gets its own policer of the full rate, not one shared aggregate",
                          policy.policer_map[name].where.loc,
                          "give each rule its own policer with its share of the rate")


def percent_text(value: object) -> str:
    return f"{value.value:g}%" if isinstance(value, Percent) else str(value)

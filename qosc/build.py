"""Build the model from a schema-checked tree: units and names become numbers, once.

The builder never stops at the first bad value: it records a diagnostic at the
value's own location, substitutes nothing clever, and goes on, so one run shows
every problem in the file.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from qosc import dscp as dscp_mod
from qosc import units
from qosc.classifier import mac_address
from qosc.diagnostics import Diagnostic, Location, error, shown
from qosc.hosts import build_hosts
from qosc.marking import ENCAPSULATIONS, default_rewrite, default_trust, domains, listed
from qosc.model import (
    UNCAPPED,
    Action,
    Buffer,
    Classifier,
    Device,
    DropProfile,
    Interface,
    Kind,
    Marking,
    Policer,
    Policy,
    Priority,
    Queue,
    Role,
    Rule,
    Service,
    Sls,
    Where,
    free_text,
)
from qosc.protocols import PROTOCOLS

T = TypeVar("T")

DEFAULT_DSCP = {Kind.PREMIUM: (46,), Kind.LBE: (8,), Kind.BEST_EFFORT: (0,), Kind.NETWORK_CONTROL: (48, 56)}
DEFAULT_TRANSPORT = {Kind.ASSURED: "tcp", Kind.LBE: "tcp", Kind.PREMIUM: "udp"}
_PRIORITY = {p.label: p for p in Priority}
_ASCII_DIGITS = re.compile(r"[0-9]{1,5}", re.ASCII)
_LEVEL = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,6})? ?%?", re.ASCII)


class Builder:
    """Holds the diagnostics of one build; methods convert one section each."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self._interfaces: dict[tuple[Any, str], dict[str, Any]] = {}

    # -- helpers ---------------------------------------------------------
    def where(self, node: Any, parent: Where | None = None) -> Where:
        """Lazy field locations of a mapping (and of the profile it overrides)."""
        nodes = (parent.nodes if parent else ()) + (node,)
        return Where(getattr(node, "loc", None) or (parent.loc if parent else None), nodes)

    def _convert(self, func: Callable[[Any], T], value: Any, loc: Location | None, code: str) -> T | None:
        try:
            return func(value)
        except (units.UnitError, dscp_mod.DscpError) as exc:
            self.diagnostics.append(error(code, exc.message, loc, exc.hint))
            return None

    def rate(self, value: Any, loc: Location | None, allow_percent: bool = True) -> Any:
        if value is None:
            return None
        return self._convert(lambda v: units.parse_rate(v, allow_percent=allow_percent), value, loc, "QOS014")

    def size(self, value: Any, loc: Location | None) -> int | None:
        if value is None:
            return None
        result = self._convert(units.parse_size, value, loc, "QOS014")
        return result if isinstance(result, int) else None

    def time(self, value: Any, loc: Location | None) -> int | None:
        return None if value is None else self._convert(units.parse_time, value, loc, "QOS014")

    def percent(self, value: Any, loc: Location | None) -> units.Percent | None:
        return None if value is None else self._convert(units.parse_percent, value, loc, "QOS014")

    def dscp(self, value: Any, loc: Location | None) -> int | None:
        return self._convert(dscp_mod.parse_dscp, value, loc, "QOS030")

    def dscp_list(self, raw: Any, loc: Location | None, where: Where, key: str) -> tuple[int, ...]:
        values = raw if isinstance(raw, list) else [raw]
        item_locs = getattr(raw, "item_locs", None) or []
        out = []
        for i, value in enumerate(values):
            code = self.dscp(value, item_locs[i] if i < len(item_locs) else where.at(key))
            if code is not None:
                out.append(code)
        return tuple(out)

    # -- sections --------------------------------------------------------
    def service(self, name: str, raw: Mapping[str, Any]) -> Service:
        where = self.where(raw)
        is_default = bool(raw.get("default", False))
        kind = Kind(raw.get("kind") or ("best-effort" if is_default else "other"))
        if "dscp" in raw:
            codes = self.dscp_list(raw["dscp"], where.at("dscp"), where, "dscp")
        else:
            codes = DEFAULT_DSCP.get(kind, ())
        q = raw.get("queue") or {}
        cap = q.get("rate-cap")
        buffer = None
        if "buffer" in q:
            text = q["buffer"]
            loc = where.at("queue.buffer")
            if isinstance(text, str) and text.strip().endswith("%"):
                pct = self.percent(text, loc)
                buffer = Buffer(percent=pct) if pct is not None else None
            else:
                us = self.time(text, loc)
                buffer = Buffer(time_us=us) if us is not None else None
        drop = raw.get("drop-profile")
        drops: tuple[tuple[int, str], ...]
        if isinstance(drop, str):
            drops = ((1, drop), (2, drop), (3, drop))
        elif isinstance(drop, dict):
            drops = tuple((i, drop[k]) for i, k in ((1, "low"), (2, "medium"), (3, "high")) if k in drop)
        else:
            drops = ()
        queue = Queue(
            share=self.rate(q.get("share"), where.at("queue.share")),
            buffer=buffer,
            priority=_PRIORITY.get(q.get("priority", "low"), Priority.LOW),
            strict=bool(q.get("strict", False)),
            rate_cap=None if cap == UNCAPPED else self.rate(cap, where.at("queue.rate-cap")),
            uncapped=cap == UNCAPPED,
            ceiling=self.rate(q.get("ceiling"), where.at("queue.ceiling")),
            shared_with=q.get("shared-with"),
            aqm=q.get("aqm") or ("red" if drops else "none"),
            ecn=bool(q.get("ecn", False)),
        )
        return Service(
            name=name, kind=kind, dscp=codes, queue=queue, default=is_default,
            description=free_text(raw.get("description")),
            drop_profiles=drops, policer=raw.get("policer"),
            transport=raw.get("transport") or DEFAULT_TRANSPORT.get(kind, "mixed"),
            rtt_us=self.time(raw.get("rtt"), where.at("rtt")),
            sls=self.sls(raw["sls"], where) if "sls" in raw else None,
            exp=Marking.parse(raw.get("exp")), pcp=Marking.parse(raw.get("pcp")),
            where=where,
        )

    def sls(self, raw: Mapping[str, Any], where: Where) -> Sls:
        scope = raw.get("scope") or {}
        at = where.at
        return Sls(
            ingress=tuple(scope.get("ingress", ())), egress=tuple(scope.get("egress", ())),
            path=tuple(raw.get("path", ())),
            rate=self.rate(raw.get("rate"), at("sls.rate"), allow_percent=False),
            delay_us=self.time(raw.get("delay"), at("sls.delay")),
            ipdv_us=self.time(raw.get("ipdv"), at("sls.ipdv")),
            loss=self.percent(raw.get("loss"), at("sls.loss")),
            quantile=self.percent(raw.get("quantile"), at("sls.quantile")),
            measurement=free_text(raw.get("measurement")), schedule=free_text(raw.get("schedule")),
            availability=self.percent(raw.get("availability"), at("sls.availability")),
            repair_time_us=self.time(raw.get("repair-time"), at("sls.repair-time")),
            customer=free_text(raw.get("customer")),
        )

    def _level(self, value: Any, loc: Location | None) -> float | None:
        """A fill level or probability in percent: 15, 15.5 or '15%' (range checked later)."""
        if isinstance(value, bool):
            self.diagnostics.append(error("QOS014", f"invalid percentage {shown(value)}", loc, "write 15 or 15%"))
            return None
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str) and _LEVEL.fullmatch(value.strip()):
            return float(value.strip().rstrip("%"))
        # float() would also take 'nan', 'Infinity', '1e308' and Unicode digits; the schema refuses them first
        self.diagnostics.append(error("QOS014", f"invalid percentage {shown(value)}", loc, "write 15 or 15%"))
        return None

    def drop_profile(self, name: str, raw: Mapping[str, Any]) -> DropProfile:
        where = self.where(raw)
        red = None
        points: tuple[tuple[float, float], ...] = ()
        if "points" in raw:
            out = []
            for i, pair in enumerate(raw["points"]):
                locs = getattr(raw["points"], "item_locs", [])
                loc = locs[i] if i < len(locs) else where.at("points")
                fill, prob = self._level(pair[0], loc), self._level(pair[1], loc)
                if fill is not None and prob is not None:
                    out.append((fill, prob))
            points = tuple(out)
        elif {"min", "max", "max-probability"} <= raw.keys():
            lo = self._level(raw["min"], where.at("min"))
            hi = self._level(raw["max"], where.at("max"))
            p = self._level(raw["max-probability"], where.at("max-probability"))
            if lo is not None and hi is not None and p is not None:
                red = (lo, hi, p)
                points = ((lo, 0.0), (hi, p))
        else:
            self.diagnostics.append(error("QOS012", f"drop profile '{name}' needs either points or min, max and "
                                          "max-probability", where.loc, "e.g. points: [[15, 30], [30, 100]]"))
        return DropProfile(name, points, bool(raw.get("interpolate", False)), red, free_text(raw.get("description")),
                           where)

    def action(self, value: Any, loc: Location | None) -> Action | None:
        if value in ("transmit", "drop"):
            return Action(str(value))
        code = self.dscp(value, loc)
        return Action("remark", code) if code is not None else None

    def policer(self, name: str, raw: Mapping[str, Any]) -> Policer:
        where = self.where(raw)
        at = where.at
        three = "pir" in raw or "ebs" in raw
        violate = self.action(raw["violate"], at("violate")) if "violate" in raw else None
        if "violate" in raw and not three:
            self.diagnostics.append(error("QOS064", f"policer '{name}' has a violate action but only two colours",
                                          at("violate"), "add pir/pbs (two-rate) or ebs (single-rate three-colour)"))
        return Policer(
            name=name,
            cir=self.rate(raw["cir"], at("cir"), allow_percent=False) or 0,
            cbs=self.size(raw["cbs"], at("cbs")) or 0,
            pir=self.rate(raw.get("pir"), at("pir"), allow_percent=False),
            pbs=self.size(raw.get("pbs"), at("pbs")),
            ebs=self.size(raw.get("ebs"), at("ebs")),
            conform=self.action(raw.get("conform", "transmit"), at("conform")) or Action("transmit"),
            exceed=self.action(raw.get("exceed", "drop"), at("exceed")) or Action("drop"),
            violate=violate or (Action("drop") if three else None),
            color_aware=bool(raw.get("color-aware", False)),
            description=free_text(raw.get("description")), where=where,
        )

    def classifier(self, name: str, raw: Mapping[str, Any]) -> Classifier:
        rules = []
        for rule_raw in raw.get("rules", []):
            where = self.where(rule_raw)
            match = rule_raw.get("match") or {}
            rules.append(Rule(
                name=rule_raw["name"], service=rule_raw["service"],
                sources=self.prefixes(match.get("source", []), where.at("match.source")),
                destinations=self.prefixes(match.get("destination", []), where.at("match.destination")),
                protocols=self.protocols(match.get("protocol", []), where.at("match.protocol")),
                source_ports=self.ports(match.get("source-port", []), where.at("match.source-port")),
                destination_ports=self.ports(match.get("destination-port", []), where.at("match.destination-port")),
                match_dscp=self.dscp_list(match["dscp"], where.at("match.dscp"), where, "match.dscp")
                if "dscp" in match else (),
                set_dscp=self.dscp(rule_raw["set-dscp"], where.at("set-dscp")) if "set-dscp" in rule_raw else None,
                policer=rule_raw.get("policer"), description=free_text(rule_raw.get("description")), where=where,
                mark=rule_raw.get("mark", True) is not False,
                pcp=tuple(sorted({int(v) for v in match.get("pcp", [])})),
                source_macs=self.macs(match.get("source-mac", []), where.at("match.source-mac")),
                destination_macs=self.macs(match.get("destination-mac", []), where.at("match.destination-mac")),
            ))
        return Classifier(name, tuple(rules), free_text(raw.get("description")), self.where(raw),
                          drop_unmatched=raw.get("unmatched") == "drop")

    def prefixes(self, values: list[Any], loc: Location | None) -> tuple[str, ...]:
        out = []
        for value in values:
            try:
                if "%" in str(value):  # Python accepts IPv6 zone ids (fe80::1%eth0); no ACL or filter does
                    raise ValueError("a zone id ('%...') is link-local to one host and has no place in a prefix")
                out.append(str(ipaddress.ip_network(str(value), strict=True)))
            except ValueError as exc:
                why = shown(str(exc), quote=False)
                self.diagnostics.append(error("QOS015", f"invalid prefix {shown(str(value))}: {why}", loc,
                                              "write a network such as 198.18.1.0/24 or fd00:1::/64 "
                                              "(host bits must be zero)"))
        return tuple(out)

    def macs(self, values: list[Any], loc: Location | None) -> tuple[str, ...]:
        out = []
        for value in values:
            try:
                out.append(mac_address(str(value)))
            except ValueError as exc:
                self.diagnostics.append(error("QOS015", f"invalid MAC address {shown(str(value))}: {exc}", loc,
                                              "write six hex pairs such as 00:0c:0d:00:00:01, or a prefix such "
                                              "as 00:0c:0d:00:00:00/24"))
        return tuple(out)

    def protocols(self, values: list[Any], loc: Location | None) -> tuple[str, ...]:
        out = []
        for value in values:
            name = str(value).lower()
            if name in PROTOCOLS or (_ASCII_DIGITS.fullmatch(name) and 0 <= int(name) <= 255):
                out.append(str(int(name)) if name not in PROTOCOLS else name)
            else:
                self.diagnostics.append(error("QOS015", f"unknown protocol {shown(str(value))}", loc,
                                              f"one of {', '.join(PROTOCOLS)} or a number 0-255 in ASCII digits"))
        return tuple(out)

    def ports(self, values: list[Any], loc: Location | None) -> tuple[tuple[int, int], ...]:
        out = []
        for value in values:
            text = str(value)
            lo_text, _, hi_text = text.partition("-")
            try:
                if not all(_ASCII_DIGITS.fullmatch(t) for t in (lo_text, hi_text or lo_text)):
                    raise ValueError  # int() takes ' 80', '+80', '8_0' and Unicode (Arabic-Indic, fullwidth) digits
                lo, hi = int(lo_text), int(hi_text or lo_text)
                if isinstance(value, bool) or not 0 <= lo <= hi <= 65535:
                    raise ValueError
                out.append((lo, hi))
            except ValueError:
                self.diagnostics.append(error("QOS015", f"invalid port or range {shown(text)}", loc,
                                              "a port 0-65535 or a range such as 6000-6010, in ASCII digits"))
        return tuple(out)

    def interface(self, name: str, raw: Mapping[str, Any], profiles: Mapping[str, Any],
                  service_names: tuple[str, ...], mtu: int) -> dict[str, Any]:
        """The fields of an Interface (`impose` as written, None when not: see `interfaces`)."""
        profile_name = raw.get("profile")
        base = profiles.get(profile_name, {}) if profile_name else {}
        where = Where(getattr(raw, "loc", None), ((base,) if base else ()) + (raw,))
        key = (profile_name, repr(raw))
        fields = self._interfaces.get(key)
        if fields is None:
            before = len(self.diagnostics)
            fields = self._interface_fields({**base, **raw}, where, service_names, mtu)
            if len(self.diagnostics) == before:
                self._interfaces[key] = fields
        return {**fields, "name": name, "profile": profile_name, "where": where}

    def interfaces(self, raw: Mapping[str, Any], profiles: Mapping[str, Any], service_names: tuple[str, ...],
                   mtu: int) -> tuple[Interface, ...]:
        """A device's interfaces; one that does not say whether it imposes EXP does at an edge of a device that
        carries MPLS."""
        found = [self.interface(i, r, profiles, service_names, mtu) for i, r in _section(raw, "interfaces")]
        mpls = any("mpls" in f["encapsulation"] for f in found)
        out = []
        new = object.__new__
        for f in found:
            f["impose"] = bool(f["impose"]) if f["impose"] is not None else mpls and f["role"] is Role.EDGE
            iface = new(Interface)
            iface.__dict__.update(f)  # (a frozen dataclass with no __post_init__: what its __init__ does)
            out.append(iface)
        return tuple(out)

    def _interface_fields(self, merged: Mapping[str, Any], where: Where, service_names: tuple[str, ...],
                          mtu: int) -> dict[str, Any]:
        """Everything of an interface but its name: shared by all interfaces written alike."""
        role = Role(merged.get("role", "core"))
        own_mtu = self.size(merged.get("mtu"), where.at("mtu")) if "mtu" in merged else None
        encapsulation = listed(merged.get("encapsulation", "ip"), ENCAPSULATIONS)
        return {
            "role": role,
            "speed": self.rate(merged.get("speed"), where.at("speed"), allow_percent=False),
            "shape": self.rate(merged.get("shape"), where.at("shape"), allow_percent=False),
            "encapsulation": encapsulation,
            "trust": domains(merged["trust"]) if "trust" in merged else default_trust(role, encapsulation),
            "rewrite": domains(merged["rewrite"]) if "rewrite" in merged else default_rewrite(role, encapsulation),
            "impose": merged.get("impose"), "default_queueing": merged.get("egress-queueing") == "device-default",
            "classifier": merged.get("classifier"),
            "services": tuple(merged["services"]) if "services" in merged else service_names,
            "port_type": merged.get("port-type"), "unit": int(merged.get("unit", 0)),
            "mtu": own_mtu or mtu, "local_senders": merged.get("local-senders") is True,
            "description": free_text(merged.get("description")),
        }


def _section(tree: Mapping[str, Any], key: str) -> list[tuple[str, Any]]:
    value = tree.get(key) or {}
    return list(value.items()) if isinstance(value, dict) else []


def build(tree: Mapping[str, Any], source: str = "") -> tuple[Policy, list[Diagnostic]]:
    """Model of a schema-valid tree, plus the diagnostics of values that did not parse."""
    b = Builder()
    defaults = tree.get("defaults") or {}
    dwhere = b.where(defaults)
    mtu = b.size(defaults.get("mtu"), dwhere.at("mtu")) or 1500
    services = tuple(b.service(n, r) for n, r in _section(tree, "services"))
    names = tuple(s.name for s in services)
    profiles = dict(_section(tree, "profiles"))
    devices = []
    for dname, draw in _section(tree, "devices"):
        ifaces = b.interfaces(draw, profiles, names, mtu)
        devices.append(Device(dname, draw["platform"], ifaces, draw.get("address"), free_text(draw.get("description")),
                              b.where(draw)))
    policy = Policy(
        name=tree["name"], services=services,
        drop_profiles=tuple(b.drop_profile(n, r) for n, r in _section(tree, "drop-profiles")),
        policers=tuple(b.policer(n, r) for n, r in _section(tree, "policers")),
        classifiers=tuple(b.classifier(n, r) for n, r in _section(tree, "classifiers")),
        devices=tuple(devices), hosts=build_hosts(b, tree), profiles=tuple(profiles),
        description=free_text(tree.get("description")),
        mtu=mtu, rtt_us=b.time(defaults.get("rtt"), dwhere.at("rtt")), source=source,
        tunnel_model=(tree.get("mpls") or {}).get("tunnel-model", "short-pipe"), where=b.where(tree),
    )
    return policy, b.diagnostics

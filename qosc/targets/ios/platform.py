"""Typed platform data of the IOS targets: one frozen dataclass per target, loaded from platforms/*.json.

The command table (`commands`) stays data: it is the dialect's grammar
(qosc.targets.ios.table compiles it, qosc.targets.ios.grammar checks statement
trees with it), with a source per command (command reference, release).  Everything the lowering reads is a
typed field, so no fact is looked up by a string key at compile time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from qosc.targets.platform import Platform, PlatformDataError, load_dataclass


@dataclass(frozen=True, kw_only=True)
class QueueData:
    """Queue sizes in packets (IOS queue-limit / random-detect thresholds)."""

    default_limit: int
    port_buffer_packets: int
    limit_max: int
    threshold_max: int
    limit_with_wred: bool
    limit_needs_rate: bool = False
    """IOS XE: a queue-limit only in a class with bandwidth, shape or priority (class-default excepted)."""
    default_delay_us: int | None = None
    """Where set, a class without a buffer has the queue this long at the link rate, in interface-MTU packets
    (the reference of its WRED thresholds); None: the platform default queue-limit (default_limit)."""
    default_bdp: bool = False
    """A bandwidth class without a buffer gets a queue-limit written: one bandwidth-delay product at its guarantee
    (qosc.sizing), instead of the box's default (IOS XE always; classic IOS only without WRED, beside which it
    takes no queue-limit)."""
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class Reservable:
    """How much of a link the router lets bandwidth/priority reserve, and the command that changes it."""

    default: int
    command: str
    source: str = ""
    """Where the dialect's command and default come from (a release may keep the command but not the limit)."""


@dataclass(frozen=True, kw_only=True)
class PortType:
    """A Catalyst 6500 PFC port type (e.g. 1p3q8t): WRR queues, thresholds per queue, priority queue, drop modes."""

    queues: int
    thresholds: int
    priority_queue: bool
    drop: tuple[Literal["wred", "tail-drop"], ...]


@dataclass(frozen=True, kw_only=True)
class MarkingData:
    """How an MQC release writes the MPLS EXP and 802.1p CoS markings (issue 21), each with the command table
    source that says so."""

    exp: Literal["classic", "topmost"]
    """'classic' (12.0S, before 12.2(13)T): `match mpls experimental V`, `set mpls experimental V` in an input
    policy (the EXP of imposed labels), police action `set-mpls-exp-transmit`; 'topmost' (12.2(13)T, IOS XE):
    `match mpls experimental topmost V`, `set mpls experimental imposition V`, `set mpls experimental topmost V`,
    police action `set-mpls-exp-imposition-transmit`."""
    exp_rewrite: bool
    """Whether a class can rewrite the EXP of the topmost label (`set mpls experimental topmost`)."""
    set_cos: bool
    """Whether a class can write the 802.1Q CoS (`set cos`)."""
    discard_class: bool
    """Whether an input class can give a drop precedence to what it matches (`set discard-class`): the drop
    precedence of EXP and PCP values (qosc writes discard-class = drop precedence, 1 low .. 3 high)."""
    police_actions: bool
    """Whether a policer takes several actions per colour (police mode: a DSCP and an EXP for one colour)."""
    tunnel_models: tuple[str, ...]
    """The RFC 3270 tunnel models qosc renders on the platform (mpls.tunnel-model); the others are QOS189."""
    source: str


@dataclass(frozen=True, kw_only=True)
class IosPlatform(Platform):
    """What every IOS platform file holds beside the generic numbers: its command table (see table.py)."""

    commands: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class MqcPlatform(IosPlatform):
    """ios-mqc platforms (ios-gsr, ios-xe)."""

    match: Literal["dscp", "precedence"]
    priority: Literal["police", "kbps"]
    police: Literal["positional", "keywords"]
    """`police <bps> <bc> <be> conform-action ...` (classic IOS before two-rate policing, 12.0S) or
    `police cir <bps> bc <bytes> [pir <bps> be <bytes>] ...` (12.2(4)T and later, IOS XE)."""
    two_rate: bool
    """Whether the release has two-rate (`pir`) policing."""
    kbps_max: int
    """The largest `bandwidth <kbps>` / `priority <kbps>` the release documents; above it only percent forms."""
    set_dscp: Literal["set dscp", "set ip dscp"]
    """How a class marks: `set ip dscp` on classic IOS (12.0S), `set dscp` (IPv4 and IPv6) from 12.2(13)T."""
    shaping: bool
    """Hierarchical shaping (`shape:`: a parent policy with `shape average` and the class policy under it) and
    policies on subinterfaces (`unit:`, interface <name>.<unit>); without it `shape:` is refused (QOS090) and so is
    a sub-interface, as `unit:` or in the name (QOS186: IOS queues on a sub-interface only under a shaper)."""
    remaining_ratio_max: int | None = None
    """The largest `bandwidth remaining ratio` (IOS XE: 1000, what Cisco's guides document; the
    Cisco-IOS-XE-policy YANG of 16.11 and 17.6 takes up to 65535: the command table's 'ratio-range'); None: the
    release has no remaining forms (classic IOS 12.0S), so shares above kbps_max are QOS133."""
    ecn: bool
    queue: QueueData
    reservable: Reservable
    marking: MarkingData


@dataclass(frozen=True, kw_only=True)
class CatalystPlatform(IosPlatform):
    """catalyst6500: the port types an interface may name (`port-type:`), typed per interface."""

    port_types: Mapping[str, PortType]
    port_types_source: str
    default_port_type: str
    ipv6_qos: bool
    """Whether the PFC generation classifies and marks IPv6 (PFC3); without it IPv6 rules warn (QOS137)."""
    ipv6_qos_source: str
    wred_max_probability: float
    """The drop probability port WRED reaches at its max threshold (the PFC has no parameter for it)."""
    wred_source: str
    aggregate_policer_name_max: int
    """The longest name of a named aggregate policer (`mls qos aggregate-policer NAME`)."""
    aggregate_policer_source: str
    mpls_qos: bool
    """Whether the PFC generation classifies and marks MPLS EXP (PFC3B/PFC3BXL in 12.2SX); without it an MPLS
    interface, `impose` or EXP trust on the switch is QOS188."""
    mpls_source: str

    def port_type(self, name: str | None) -> tuple[str, PortType]:
        chosen = name or self.default_port_type
        return chosen, self.port_types[chosen]


CLASSES: dict[str, type[IosPlatform]] = {"ios-mqc": MqcPlatform, "catalyst6500": CatalystPlatform}


@lru_cache(maxsize=1)
def platforms() -> Mapping[str, IosPlatform]:
    """Every platforms/*.json of the package, each as its target's class."""
    found: dict[str, IosPlatform] = {}
    folder = resources.files(__package__).joinpath("platforms")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        where = f"{__package__}/platforms/{entry.name}"
        data = json.loads(entry.read_text(encoding="utf-8"))
        cls = CLASSES.get(data.get("target", ""))
        if cls is None:
            raise PlatformDataError(f"{where}: target {data.get('target')!r} is not an IOS target")
        platform = load_dataclass(cls, data, where)
        if platform.name != entry.name[:-5]:
            raise PlatformDataError(f"{where}: name {platform.name!r} differs from the file name")
        found[platform.name] = platform
    return found


def get(name: str) -> IosPlatform | None:
    return platforms().get(name)

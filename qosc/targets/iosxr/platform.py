"""Typed IOS XR platform data (platforms/iosxr-*.json): what differs between the ASR 9000 and the Cisco 8000.

Each fact carries its source in the file (`source`, `sources`: document,
release, section); a fact no Cisco text qosc's authors could read confirms is
listed in `unverified` with what its value is inferred from, and the output of
a device that relies on it says so (QOS250 and the header).  The unified YANG
is one model for every IOS XR box; the family differences are here, never an
if on the platform's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosc.targets.platform import Platform, Range


@dataclass(frozen=True, kw_only=True)
class IosxrPlatform(Platform):
    split: bool
    """Classification and queuing are split (Cisco 8000): an ingress policy on every interface classifies and sets
    a traffic-class (and a discard-class per drop precedence), the egress queuing policy matches traffic-class."""
    traffic_classes: int
    """Traffic classes 0..N-1 an ingress policy may set where classification is split (class-default is 0)."""
    priority_levels: int
    """Strict-priority levels (`priority level 1..N`)."""
    strict_cap: str
    """How a strict class's cap is written: 'police' (police rate in the class) or 'shape' (shape average)."""
    min_bandwidth: bool
    """Whether a queuing class takes `bandwidth` (a minimum guarantee); else shares are `bandwidth remaining ratio`."""
    remaining_ratio: Range
    """Range of `bandwidth remaining ratio`."""
    wred_fields: tuple[str, ...]
    """What random-detect profiles may key on in an egress queuing class (dscp, exp, precedence, discard-class)."""
    wred_per_class: int
    """The random-detect profiles (min/max threshold pairs) one class takes; a service with more drop profiles
    than that has its highest drop precedences share one (QOS251)."""
    port_buffer_us: int
    """The buffer a queue-limit of `buffer: 100%` stands for, in microseconds at the rate of the class (a qosc
    convention, as IOS's port_buffer_packets: a policy's buffer percentages become queue-limit times)."""
    default_queue_us: int
    """The queue-limit qosc writes for a class without a buffer (the box's own default, written out)."""
    shape_rate: Range
    """Range of `shape average` in kbit/s."""

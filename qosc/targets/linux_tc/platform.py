"""Typed linux-tc platform data (platforms/linux.json): the settings the lowering sizes HTB classes with.

Loaded and validated by qosc.targets.platform when the target is first
used: an unknown, missing or mistyped key is a PlatformDataError naming the
file and the key, never a string lookup at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosc.targets.platform import Platform


@dataclass(frozen=True, kw_only=True)
class LinuxTcPlatform(Platform):
    htb_burst_us: int
    """HTB burst = one frame + this long at the class rate (cburst likewise at the ceil)."""
    port_buffer_us: int
    """"The port buffer" that buffer percentages refer to: this long at the link rate."""
    minimum_rate_permille: int
    """A 0% share gets this many thousandths of the link ..."""
    minimum_rate: int
    """... and at least this many bit/s (HTB needs a rate above zero)."""
    red_avpkt: int
    """red's `avpkt` (bytes): the average packet size its burst is counted in."""
    police_index_base: int
    """Police action indexes of a device start above this number."""
    tcp_limit_output_bytes: int
    """What one local TCP socket may keep in the qdisc (TCP Small Queues): the floor of a default-sized, non-strict
    class on an interface whose own sockets send (local-senders), so their own host never drops them."""

"""Queue limits, burst allowances and delay bounds from the rate a class drains at.

One set of formulas for every target and for the SLS, so the bound qosc
promises comes from the very numbers the configuration uses.  Pure functions
on integers (bytes, bit/s, microseconds); exact arithmetic, rounding up.

Drain rate R of a class: the rate its queue empties at when every class is
overloaded (the worst case a buffer's promise must hold in).

- a class that cannot borrow (rate = ceil: strict priority at its cap, or a
  guarantee with a ceiling equal to it): R = that cap;
- a class that borrows above its guarantee (rate < ceil) is pushed back to its
  guarantee when the others are busy: R = the guarantee;
- a class with no known guarantee: R = the link rate C.

Queue limit Q of a class, in bytes and in packets of F bytes (F = the MTU plus
what the target's queue counts of the frame; Linux counts the Ethernet header):

- buffer given as a time t: Q = t x R / 8 -- a buffer time is a delay promise,
  so it is t of queue at the rate the queue drains at, not at the link rate
  (a 10 Mbit/s capped EF with ``buffer: 2ms`` gets 2.5 kB, not 2 ms of a
  100 Mbit/s link, 25 kB);
- buffer given as a percentage p: Q = p x the port buffer (port_buffer_us at
  C, 100 ms by default) -- a share of memory, as on JUNOS and IOS;
- no buffer: one bandwidth-delay product at R, Q = R x RTT / 8 (RTT: the
  service's rtt, else the policy's defaults.rtt, else DEFAULT_RTT_US, 100 ms),
  at least DEFAULT_FLOOR_PACKETS (10) packets (on Linux, at least one 64 KiB
  GSO/GRO aggregate: a byte fifo shorter than that drops a TCP sender's
  aggregates for their size alone, and LBE alone could not fill the link)
  and at most the whole port buffer.  The BDP is taken at the drain rate, so
  a class that borrows far above its guarantee over a long RTT may not fill
  what it borrows with one TCP flow: the price of a queue that never holds
  seconds of traffic at the guarantee;
- always at least EXPLICIT_FLOOR_PACKETS (2) packets: one in transmission
  and one waiting.

Packets = ceil(Q / F).

Burst allowance B of a shaper that caps a class at R (HTB burst/cburst):
max(BURST_PACKETS x F, R x BURST_US / 8, declared) = max(10 packets, 1 ms at
the cap, the CBS of the service's own policer when it has one), so an
in-profile burst -- a few packets, or what the edge policer admits -- is not
queued behind its own cap.  Policers always declare their bursts (cbs, pbs, ebs are policy fields):
qosc renders them as declared.

Per-hop delay bound of a priority class (strict, or the one highest-priority
queue) whose arrivals are within R, on a link of rate C:

    d = min(Q / R, max(sigma / C, (sigma - B) / R)) + F / C

Q / R: a packet that is queued finds at most Q bytes ahead of it, drained at
R or faster (tail drop); a class policed at its entrance at a cap below R
with a bucket P (IOS `priority` + `police`: the excess is dropped, never
queued) never holds more than P, so P / R bounds the wait the same way;
sigma: the burst the edge policers let into the queue (when known), which
leaves at the link rate while the shaper has tokens (B) and at R after;
F / C: one packet of another class already in transmission (no preemption).
Without a known sigma the first term alone bounds it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from qosc.units import format_rate

DEFAULT_RTT_US = 100_000
"""RTT for the default buffer when neither the service nor the policy declares one."""
DEFAULT_PORT_BUFFER_US = 100_000
"""The port buffer that buffer percentages share: 100 ms at the link rate."""
DEFAULT_FLOOR_PACKETS = 10
"""Smallest default queue: TCP needs a few packets of queue to keep its window."""
EXPLICIT_FLOOR_PACKETS = 2
"""Smallest queue of any class: one packet in transmission, one waiting."""
BURST_PACKETS = 10
BURST_US = 1000


# -- formatting -------------------------------------------------------------------

def fmt_rate(bps: int) -> str:
    """1000000000 -> '1 Gbit/s', 2500000000 -> '2.5 Gbit/s', 64000 -> '64 kbit/s'."""
    text = format_rate(bps)
    if text[-1:].isalpha():
        return f"{text[:-1]} {text[-1]}bit/s"
    return f"{text} bit/s"


def fmt_time(us: Fraction | int) -> str:
    """Microseconds for people: 524 -> '524 µs', 733.6 -> '733.6 µs', 2500 -> '2.5 ms' (4 decimals at most)."""
    value = Fraction(us)
    unit = "µs"
    if value >= 1000:
        value, unit = value / 1000, "ms"
    if value >= 1000:
        value, unit = value / 1000, "s"
    scaled = round(value * 10000)
    whole, frac = divmod(scaled, 10000)
    text = str(whole) + (f".{frac:04d}".rstrip("0") if frac else "")
    approx = "" if value * 10000 == scaled else "≈ "
    return f"{approx}{text} {unit}"


def _bytes(nbytes: int) -> str:
    return f"{nbytes} B"


# -- the pieces ---------------------------------------------------------------------

@dataclass(frozen=True)
class Drain:
    rate: int
    why: str


def drain_rate(link: int, guarantee: int | None, ceil: int | None = None) -> Drain:
    """The rate a class's queue drains at under overload (see the module docstring).

    `guarantee` is the class's rate (its cap for a strict class), `ceil` what
    it may borrow up to (None: the link).
    """
    ceil = link if ceil is None else min(ceil, link)
    if guarantee is None or guarantee <= 0:
        return Drain(link, f"no guarantee: drains at the link rate {fmt_rate(link)}")
    guarantee = min(guarantee, ceil)
    if guarantee >= ceil:
        return Drain(guarantee, f"capped: drains at its cap {fmt_rate(guarantee)}")
    return Drain(guarantee, f"may be starved to its guarantee {fmt_rate(guarantee)}")


def at_rate(bps: int, us: int | Fraction) -> int:
    """Bytes sent in `us` microseconds at `bps`, rounded up."""
    return math.ceil(Fraction(bps) * Fraction(us) / 8_000_000)


@dataclass(frozen=True)
class QueueSize:
    bytes: int
    packets: int
    formula: str
    wanted: int
    """Bytes before the floor (and before any target limit): what the policy asked for."""


def packets_of(nbytes: int, frame: int) -> int:
    return max(1, math.ceil(nbytes / frame))


def queue_size(drain: int, link: int, frame: int, *, time_us: int | None = None,
               percent: Fraction | float | None = None, rtt_us: int | None = None,
               port_buffer_us: int = DEFAULT_PORT_BUFFER_US, default_floor: int = 0,
               floor_why: str | None = None) -> QueueSize:
    """The queue limit of a class: from its buffer time or percentage, else one BDP (module docstring).

    `default_floor` (bytes) raises the floor of a default queue where the target queues aggregates
    rather than packets (Linux: one 64 KiB GSO/GRO aggregate, see the linux-tc target's plan module),
    or where its own host's sockets send into it (Linux: what TCP Small Queues lets one socket keep in
    the qdisc); `floor_why` names that floor in the formula (default: "one <bytes> aggregate").
    """
    floor = EXPLICIT_FLOOR_PACKETS * frame
    if time_us is not None:
        wanted = at_rate(drain, time_us)
        formula = f"{fmt_time(time_us)} x {fmt_rate(drain)} / 8 = {_bytes(wanted)}"
    elif percent is not None:
        port = at_rate(link, port_buffer_us)
        wanted = round(Fraction(port) * Fraction(percent) / 100)
        formula = (f"{float(percent):g}% of the port buffer ({fmt_time(port_buffer_us)} x {fmt_rate(link)} / 8) = "
                   f"{_bytes(wanted)}")
    else:
        rtt = rtt_us if rtt_us is not None else DEFAULT_RTT_US
        bdp = at_rate(drain, rtt)
        port = at_rate(link, port_buffer_us)
        floor = max(DEFAULT_FLOOR_PACKETS * frame, default_floor)
        wanted = min(bdp, port)
        formula = f"no buffer: one BDP, {fmt_rate(drain)} x rtt {fmt_time(rtt)} / 8 = {_bytes(bdp)}"
        if bdp > port:
            formula += f", at most the port buffer {_bytes(port)}"
        if wanted < floor:
            formula += (f", at least {DEFAULT_FLOOR_PACKETS} packets" if floor == DEFAULT_FLOOR_PACKETS * frame
                        else f", at least one {_bytes(floor)} aggregate" if floor_why is None
                        else f", at least {floor_why}, {_bytes(floor)}")
    nbytes = max(wanted, floor)
    if nbytes != wanted and (time_us is not None or percent is not None):
        formula += f", at least {EXPLICIT_FLOOR_PACKETS} packets"
    if nbytes != wanted:
        formula += f" = {_bytes(nbytes)}"
    packets = packets_of(nbytes, frame)
    return QueueSize(nbytes, packets, f"{formula} ({packets} packets of {frame} B)", wanted)


@dataclass(frozen=True)
class Burst:
    bytes: int
    formula: str


def burst_allowance(cap: int, frame: int, declared: int | None = None) -> Burst:
    """Token bucket of a shaper capping a class at `cap`: max(10 packets, 1 ms at cap, the declared burst)."""
    packets = BURST_PACKETS * frame
    timed = at_rate(cap, BURST_US)
    nbytes = max(packets, timed, declared or 0)
    formula = f"max({BURST_PACKETS} x {frame} B, {fmt_time(BURST_US)} x {fmt_rate(cap)} / 8"
    if declared is not None:
        formula += f", declared burst {_bytes(declared)}"
    return Burst(nbytes, f"{formula}) = {_bytes(nbytes)}")


# -- a class, and its bound -------------------------------------------------------------

@dataclass(frozen=True)
class ClassSizing:
    """What one class of one interface is configured with, in the numbers its target writes."""

    link: int
    frame: int
    drain: Drain
    queue: QueueSize | None
    """None where the target leaves the device's own default queue (its size unknown to qosc)."""
    burst: Burst | None
    """The shaper's bucket when the class is capped (cannot borrow), else None."""
    policed: Burst | None = None
    """The bucket of a policer that caps the class at its entrance (IOS: `priority` + `police`): it drops what
    exceeds the bucket above the cap instead of queueing it, so, drained faster than the cap, the queue never
    holds more than this."""


@dataclass(frozen=True)
class Unsized:
    """A target's word that it cannot size this class from documented facts (the SLS keeps the generic
    (b + MTU) x 8 / C of a queue served at the link rate, and shows `reason` beside it)."""

    reason: str


@dataclass(frozen=True)
class Bound:
    us: Fraction
    formula: str


def delay_bound(c: ClassSizing, sigma: int | None) -> Bound | None:
    """Per-hop delay bound of a priority class (module docstring); None when neither Q nor sigma bounds it, or
    when the class cannot drain (a rate of 0: QOS045 refuses the policy, the SLS check still runs)."""
    if c.drain.rate <= 0:
        return None
    terms: list[tuple[Fraction, str]] = []
    if c.queue is not None:
        terms.append((Fraction(c.queue.bytes * 8_000_000, c.drain.rate),
                      f"Q / R = {_bytes(c.queue.bytes)} x 8 / {fmt_rate(c.drain.rate)}"))
    if c.policed is not None:
        terms.append((Fraction(c.policed.bytes * 8_000_000, c.drain.rate),
                      f"P / R = {_bytes(c.policed.bytes)} x 8 / {fmt_rate(c.drain.rate)}"))
    if sigma is not None:
        shaper = c.burst.bytes if c.burst is not None else 0
        at_link = Fraction(sigma * 8_000_000, c.link)
        behind = Fraction(max(0, sigma - shaper) * 8_000_000, c.drain.rate)
        if behind > at_link:
            terms.append((behind, f"(sigma - B) / R = ({_bytes(sigma)} - {_bytes(shaper)}) x 8 / "
                                  f"{fmt_rate(c.drain.rate)}"))
        else:
            terms.append((at_link, f"sigma / C = {_bytes(sigma)} x 8 / {fmt_rate(c.link)}"))
    if not terms:
        return None
    wait, text = min(terms, key=lambda t: t[0])
    tx = Fraction(c.frame * 8_000_000, c.link)
    total = wait + tx
    return Bound(total, f"{text} + F / C = {fmt_time(wait)} + {_bytes(c.frame)} x 8 / {fmt_rate(c.link)} "
                        f"= {fmt_time(total)}")

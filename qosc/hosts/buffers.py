"""Kernel constants and the bandwidth-delay arithmetic (window, cap, txqueuelen) shared by the plan, checks and target.

Pure functions of numbers and TcpSettings, apart from the per-host plan (qosc.hosts.planning) so the checks and
the linux-host target can reason about any buffer values, planned or current.  The formulas and the reason for
HEADROOM are in the qosc.hosts docstring.
"""

from __future__ import annotations

from qosc.hosts.model import HostInterface, TcpSettings

HEADROOM = 2
"""Socket buffer = HEADROOM x window (kernel bookkeeping overhead; see the qosc.hosts docstring)."""

INT_MAX = 2**31 - 1
"""Largest value the kernel accepts for every buffer sysctl (proc_dointvec_minmax on an int)."""

SOCK_MIN_RCVBUF = 2304
SOCK_MIN_SNDBUF = 4608
"""Smallest net.core.rmem_max / wmem_max the kernel accepts on x86-64 (2048 + aligned sizeof(sk_buff), doubled
for send); they vary slightly with the architecture and kernel configuration."""

STOCK_RMEM = (4096, 131072, 33554432)
STOCK_WMEM = (4096, 16384, 4194304)
"""Stock tcp_rmem / tcp_wmem of current Linux (net/ipv4/tcp.c tcp_init: 128 KiB initial receive buffer since 4.20,
receive max min(32 MiB, memory share), send max min(4 MiB, memory share)).  qosc never generates less than these,
so a drop-in sized for a short path cannot shrink the buffers of other, undeclared paths."""

TXQUEUELEN_PER_GBIT = 2000
TXQUEUELEN_MIN = 1000
TXQUEUELEN_MAX = 10000
"""txqueuelen (packets) = 2000 per Gbit/s, the source's value at 1 Gbit/s (it avoided send stalls), scaled linearly
with speed so the queue keeps the same drain time (2000 x 1500 B at 1 Gbit/s = 24 ms), clamped between the kernel
default 1000 and 10000 (the usual recommendation for 10 Gbit/s hosts: a longer FIFO adds latency, not throughput)."""


def window_for(rate: int, rtt_us: int) -> int:
    """Bytes in flight to sustain `rate` bit/s over `rtt_us`: ceil(rate x RTT / 8), the bandwidth-delay product."""
    return -(-rate * rtt_us // 8_000_000)


def cap_for(window: int, rtt_us: int) -> int:
    """The highest rate (bit/s) a window of `window` bytes allows over `rtt_us`: window / RTT."""
    return window * 8_000_000 // rtt_us if rtt_us > 0 else 0


def mbit(bps: float) -> str:
    """A rate as '72.3 Mbit/s' (one decimal) for messages and comments."""
    text = f"{bps / 1e6:.1f}"
    return f"{text.removesuffix('.0')} Mbit/s"


def txqueuelen_for(speed: int) -> int:
    """Transmit queue length for a link speed (see TXQUEUELEN_PER_GBIT)."""
    scaled = round(TXQUEUELEN_PER_GBIT * speed / 1_000_000_000)
    return max(TXQUEUELEN_MIN, min(TXQUEUELEN_MAX, scaled))


def autotuned_window(settings: TcpSettings) -> int | None:
    """Window of sockets the kernel autotunes: min(tcp_rmem max, tcp_wmem max) / HEADROOM (None if unknown)."""
    known = [t.max for t in (settings.tcp_rmem, settings.tcp_wmem) if t is not None]
    return min(known) // HEADROOM if known else None


def explicit_window(settings: TcpSettings) -> int | None:
    """Window of sockets that set SO_RCVBUF/SO_SNDBUF themselves: min(rmem_max, wmem_max) (None if unknown)."""
    known = [v for v in (settings.rmem_max, settings.wmem_max) if v is not None]
    return min(known) if known else None


def txqueuelen_plan(iface: HostInterface) -> tuple[HostInterface, int, str]:
    """An interface's transmit queue length and why: the policy's value, else txqueuelen_for(speed)."""
    if iface.txqueuelen is not None:
        return iface, iface.txqueuelen, "override from the policy"
    value = txqueuelen_for(iface.speed)
    why = (f"{TXQUEUELEN_PER_GBIT} packets per Gbit/s x {iface.speed / 1e9:g} Gbit/s "
           f"(source: {TXQUEUELEN_PER_GBIT} at 1 Gbit/s avoided send stalls)")
    if value != round(TXQUEUELEN_PER_GBIT * iface.speed / 1e9):
        why += f", clamped to {TXQUEUELEN_MIN}..{TXQUEUELEN_MAX}"
    return iface, value, why

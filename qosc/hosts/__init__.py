"""End hosts: the model, its builder, and the TCP buffer plan sized from the bandwidth-delay product.

A Diffserv service that promises a rate (Assured Rate, an LBE bulk class)
only delivers it if the hosts at both ends keep a window of rate x RTT in
flight; stock buffers of the 2000s capped long-distance transfers at 5-10% of a
gigabit path (domain brief 4.5).  The policy declares hosts under `hosts:` with
the paths they transfer over; this package turns that into frozen dataclasses
(like qosc.model) and computes, once, the sysctl values every later stage uses:
the checks (qosc.checks.hosts), the linux-host target and the SLS.

  - qosc.hosts.model: the dataclasses (Host, its interfaces, paths and TcpSettings);
  - qosc.hosts.buffers: the kernel constants and the window / cap arithmetic;
  - qosc.hosts.planning: the per-host plan (plan) and the SLS's service_requirements;
  - qosc.hosts.builder: `hosts:` of a policy tree to the model (build_hosts).
Every public name the single qosc/hosts.py module had is re-exported here, so
`from qosc.hosts import ...` keeps working.

Formulas (all integers, bytes and bit/s):

    window(path)  = ceil(rate x RTT / 8)              the bandwidth-delay product
    buffer(path)  = HEADROOM x window(path)           HEADROOM = 2
    tcp_Xmem max  = max(largest buffer, stock kernel max, the host's current max)
    net.core.Xmem_max = tcp_Xmem max

HEADROOM = 2 because a socket buffer holds kernel bookkeeping as well as
payload: with net.ipv4.tcp_adv_win_scale = 1 (the default since Linux 3.4) the
receiver advertises only half its buffer as window, kernels since 6.6 replace
that fixed ratio by the measured payload/truesize ratio (at most about 1/2 to
3/4 of the buffer for 1500-byte frames), the send side is sized the same way
(tcp_sndbuf_expand reserves two segments of truesize per packet of cwnd), and
setsockopt(SO_RCVBUF/SO_SNDBUF) doubles the request for the same reason.
So a buffer of 2 x BDP lets the window itself reach the BDP.

Which buffer caps which socket:
  - autotuned sockets (most applications) grow up to tcp_rmem/tcp_wmem max, so
    their window is min(tcp_rmem max, tcp_wmem max) / HEADROOM;
  - applications that size their own buffers (GridFTP -tcp-bs, iperf -w, dCache
    movers) are clamped to net.core.rmem_max / wmem_max, which the kernel then
    doubles, so their window is min(rmem_max, wmem_max).
Throughput cap = window / RTT.
"""

from __future__ import annotations

from qosc.hosts.buffers import (
    HEADROOM,
    INT_MAX,
    autotuned_window,
    cap_for,
    explicit_window,
    mbit,
    txqueuelen_for,
    window_for,
)
from qosc.hosts.buffers import SOCK_MIN_RCVBUF as SOCK_MIN_RCVBUF
from qosc.hosts.buffers import SOCK_MIN_SNDBUF as SOCK_MIN_SNDBUF
from qosc.hosts.buffers import STOCK_RMEM as STOCK_RMEM
from qosc.hosts.buffers import STOCK_WMEM as STOCK_WMEM
from qosc.hosts.buffers import TXQUEUELEN_MAX as TXQUEUELEN_MAX
from qosc.hosts.buffers import TXQUEUELEN_MIN as TXQUEUELEN_MIN
from qosc.hosts.buffers import TXQUEUELEN_PER_GBIT as TXQUEUELEN_PER_GBIT
from qosc.hosts.builder import build_host as build_host
from qosc.hosts.builder import build_hosts
from qosc.hosts.model import SYSCTL_KEYS as SYSCTL_KEYS
from qosc.hosts.model import SYSCTL_NAMES as SYSCTL_NAMES
from qosc.hosts.model import Host, HostInterface, HostPath, TcpSettings, Triple
from qosc.hosts.planning import HostPlan, PathNeed, Value, plan, service_requirements
from qosc.hosts.planning import path_rate as path_rate

# __all__ is the one the single module had (what `import *` gives); the `X as X` imports above keep the other
# public names importable from qosc.hosts too, as qosc.checks.hosts and the linux-host target import them.
__all__ = [
    "HEADROOM",
    "INT_MAX",
    "Host",
    "HostInterface",
    "HostPath",
    "HostPlan",
    "PathNeed",
    "TcpSettings",
    "Triple",
    "Value",
    "autotuned_window",
    "build_hosts",
    "cap_for",
    "explicit_window",
    "mbit",
    "plan",
    "service_requirements",
    "txqueuelen_for",
    "window_for",
]

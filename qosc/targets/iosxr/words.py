"""IOS XR words: names, DSCP spellings and values with their units always written (never the box's default).

Rates are written in the largest of gbps, mbps, kbps, bps that is exact;
sizes in bytes; times in ms when whole milliseconds, else us; the reader
(read/) takes every unit the forms allow back to bit/s, bytes and
microseconds.
"""

from __future__ import annotations

import re

from qosc.tree import Word, dscp, integer, kw, name, rate, size, time_us

DSCP_NAMES = {0: "default", 10: "af11", 12: "af12", 14: "af13", 18: "af21", 20: "af22", 22: "af23", 26: "af31",
              28: "af32", 30: "af33", 34: "af41", 36: "af42", 38: "af43", 8: "cs1", 16: "cs2", 24: "cs3", 32: "cs4",
              40: "cs5", 48: "cs6", 56: "cs7", 46: "ef"}
"""The DSCP names of the unified model's dscp-value enumeration (Cisco-IOS-XR-um-policymap-classmap-cfg)."""
DSCP_VALUES = {v: k for k, v in DSCP_NAMES.items()}
RATE_UNITS = (("gbps", 1_000_000_000), ("mbps", 1_000_000), ("kbps", 1_000), ("bps", 1))
SIZE_UNITS = {"bytes": 1, "kbytes": 1_000, "mbytes": 1_000_000, "gbytes": 1_000_000_000}
TIME_UNITS = {"us": 1, "ms": 1_000}
_BAD = re.compile(r"[^a-zA-Z0-9._@$%+#:=<>-]")


def xr_name(text: str) -> str:
    """A class-map or policy-map name within the unified model's pattern ([a-zA-Z0-9][a-zA-Z0-9._@$%+#:=<>-]{0,62})."""
    out = _BAD.sub("-", text).lstrip("._@$%+#:=<>-") or "qosc"
    return out[:63]


def dscp_word(code: int) -> Word:
    return dscp(code, DSCP_NAMES.get(code, str(code)))


def dscp_list(codes: list[int]) -> Word:
    """Several code points in one comma-separated word (random-detect dscp)."""
    return kw(",".join(DSCP_NAMES.get(c, str(c)) for c in codes))


def rate_words(bps: int) -> tuple[Word, Word]:
    """A rate and its unit, in the largest exact unit (bit/s below 1 kbit/s)."""
    for unit, factor in RATE_UNITS:
        if bps % factor == 0 and bps >= factor:
            return rate(bps, str(bps // factor)), kw(unit)
    return rate(bps, str(bps)), kw("bps")


def kbps_words(bps: int) -> tuple[Word, Word]:
    """A rate rounded to whole kbit/s (at least 1), in the largest exact unit."""
    return rate_words(max(1, round(bps / 1000)) * 1000)


def size_words(nbytes: int) -> tuple[Word, Word]:
    return size(nbytes, str(nbytes)), kw("bytes")


def time_words(us: int) -> tuple[Word, Word]:
    us = max(1, int(us))
    if us % 1000 == 0:
        return time_us(us, str(us // 1000)), kw("ms")
    return time_us(us, str(us)), kw("us")


def number(value: int) -> Word:
    return integer(value)


def label(text: str) -> Word:
    return name(xr_name(text))

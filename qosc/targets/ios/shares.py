"""The guaranteed share of an IOS MQC class: one `bandwidth` form per policy-map (mqc.py's egress classes).

- every share of the interface a whole percentage: ``bandwidth percent N``;
- else ``bandwidth <kbit/s>`` of the interface rate, while every share fits the release's ``kbps_max``
  (2,000,000 on classic IOS and IOS XE 16.x);
- else, where the release has ``bandwidth remaining ratio`` (IOS XE: ``remaining_ratio_max``, 1..1000 as Cisco
  documents it; the Cisco-IOS-XE-policy YANG takes up to 65535), every share is a ratio: a class gets its
  ratio's part of the sum of the policy-map's ratios, of what the strict classes (capped by their policers)
  leave.  The ratios are the integers that keep the shares' proportions best (ratios.py); each class's comment
  states its rounding error, and an error above ratios.TOLERANCE is QOS185 at the share.  Shares that add up to
  less than what the strict classes leave are each guaranteed proportionally more (QOS138).
  Classic IOS (12.0S) has no remaining forms: QOS133 at the share.

One form per policy-map: IOS refuses mixed forms (Cisco-IOS-XE-policy 17.6.1: "Mixed bandwidth types are not
supported").

A bandwidth class's rate-cap or ceiling (below 100%) is ``shape average <bit/s>`` in the class, beside its
``bandwidth`` (a minimum and a maximum; Cisco-IOS-XE-policy `shape average` in a policy-map class), where the
dialect shapes (IOS XE: `shaping`); classic IOS refuses it at the field (QOS191, lowering.py).
"""

from __future__ import annotations

import math
from typing import Literal

from qosc.diagnostics import Location
from qosc.model import Device, Interface, Service, resolve_rate
from qosc.targets.ios.common import Command, Findings, at, is_integral
from qosc.targets.ios.platform import IosPlatform, MqcPlatform
from qosc.targets.ios.ratios import TOLERANCE, best_ratios, ratio_error
from qosc.targets.ios.table import arg_range
from qosc.units import Percent, format_rate

Form = Literal["percent", "kbps", "ratio"]


class Shares:
    """What MqcLowering needs for `bandwidth` (mixed in: it has these attributes)."""

    device: Device
    d: MqcPlatform
    platform: IosPlatform
    found: Findings

    def share_form(self, own: list[Service], shares: dict[str, float | None], iface: Interface) -> Form:
        fractional = any(pct is not None and not is_integral(pct) for pct in shares.values())
        if not fractional:
            return "percent"
        if iface.rate and self.d.remaining_ratio_max is not None and any(
                pct is not None and self.kbps(pct, iface) > self.d.kbps_max for pct in shares.values()):
            return "ratio"
        return "kbps"

    @staticmethod
    def kbps(pct: float, iface: Interface) -> int:
        return max(8, math.floor(pct * (iface.rate or 0) / 100_000))

    def ratios(self, own: list[Service], shares: dict[str, float | None], iface: Interface
               ) -> dict[str, tuple[int, str]]:
        """Each share's `bandwidth remaining ratio` and the comment that states its rounding error (ratios.py);
        QOS185 at the share whose part is off by the most, where that passes ratios.TOLERANCE."""
        named = [(s, pct) for s in own if (pct := shares.get(s.name)) is not None]
        high = self.d.remaining_ratio_max or 1
        got = best_ratios([pct for _, pct in named], high)
        ratio_sum, share_sum = sum(got), sum(pct for _, pct in named)
        out: dict[str, tuple[int, str]] = {}
        worst: tuple[float, Service, float, int] | None = None
        for (s, pct), r in zip(named, got, strict=True):
            err = ratio_error(r, ratio_sum, pct, share_sum)
            part, asked = 100 * r / ratio_sum, 100 * pct / share_sum if share_sum else 0.0
            text = f"bandwidth remaining ratio {r} of {ratio_sum}: {part:.4g}% of what the strict classes leave, "
            of = f"{pct:g}% of the shares' {share_sum:g}%"
            text += (f"exactly the share's part ({of})" if abs(err) < 5e-7 else
                     f"for the share's {asked:.4g}% ({of}): rounding error {_signed(err)}")
            out[s.name] = (r, text)
            if abs(err) > TOLERANCE and (worst is None or abs(err) > abs(worst[0])):
                worst = (err, s, pct, r)
        if worst is not None:
            err, s, pct, r = worst
            self.found.warning("QOS185", f"service '{s.name}' share {pct:g}% on {self.device.name}:{iface.name} "
                               f"is written as `bandwidth remaining ratio {r}` of {ratio_sum} ({self.platform.name} "
                               f"takes ratios 1..{high}): its part of what the strict classes leave is "
                               f"{100 * r / ratio_sum:.4g}%, {1 + err:.3g} times the share's "
                               f"{100 * pct / share_sum:.4g}%", s.where.at("queue.share"),
                               f"keep the shares of one interface within 1:{high} of each other (raise the smallest), "
                               "or give whole percentages (`bandwidth percent`)")
        return out

    def bandwidth(self, s: Service, pct: float, form: Form, iface: Interface, ratio: int | None = None
                  ) -> Command | None:
        """The class's `bandwidth` in the policy-map's form (None: no rate to give kbit/s of, QOS121 said so);
        `ratio`: its `bandwidth remaining ratio` where the form is ratio (Shares.ratios)."""
        if form == "percent":
            return at(["bandwidth", "percent", round(pct)], s.where, "queue.share")
        if form == "ratio":
            return at(["bandwidth", "remaining", "ratio", ratio or 1], s.where, "queue.share")
        if not iface.rate:
            return None
        kbps = self.kbps(pct, iface)
        if kbps > self.d.kbps_max:
            self.found.error("QOS133", f"service '{s.name}' share {pct:g}% of {self.device.name}:{iface.name} is "
                             f"{kbps} kbit/s, above the {self.d.kbps_max} kbit/s `bandwidth` of {self.platform.name}, "
                             "and `bandwidth percent` takes whole numbers only", s.where.at("queue.share"),
                             "give every service of the interface a whole-percent share")
        return at(["bandwidth", kbps], s.where, "queue.share")

    def ratio_surplus(self, own: list[Service], shares: dict[str, float | None], strict: float,
                      iface: Interface) -> None:
        """QOS138: ratios divide all the strict classes leave (`strict` percent of the interface), so shares that add
        up to less guarantee each class proportionally more than its share (the minimum asked for is kept)."""
        given = sum(pct or 0.0 for pct in shares.values())
        left = 100.0 - strict
        big = next((s for s in own if self.kbps(shares.get(s.name) or 0.0, iface) > self.d.kbps_max), None)
        fractional = next((s for s in own if shares.get(s.name) is not None and not is_integral(shares[s.name] or 0)),
                          None)
        if big is None or fractional is None or given <= 0 or left - given <= 0.5:
            return
        self.found.warning("QOS138", f"shares on {self.device.name}:{iface.name} are written as `bandwidth remaining "
                           f"ratio` (service '{fractional.name}' share {shares[fractional.name]:g}% is not a whole "
                           f"percentage, which `bandwidth percent` needs, and service '{big.name}' share "
                           f"{shares[big.name]:g}% is {self.kbps(shares[big.name] or 0.0, iface)} kbit/s, above the "
                           f"{self.d.kbps_max} kbit/s `bandwidth` of {self.platform.name}); {self.platform.name} "
                           f"divides all {left:g}% the strict classes leave by ratio, so the shares ({given:g}% "
                           f"together) are each guaranteed {left / given:.4g} times over",
                           fractional.where.at("queue.share"), f"let the shares of the interface add up to {left:g}%, "
                           f"or give '{fractional.name}' a whole-percent share")

    def class_cap(self, s: Service, iface: Interface) -> tuple[Command, str] | None:
        """`shape average` of a bandwidth class with a rate cap or a ceiling below 100% (module docstring), and its
        note; None when it has neither, or the dialect does not shape (QOS191 was said)."""
        q = s.queue
        key, value = next(((k, v) for k, v in (("queue.rate-cap", q.rate_cap), ("queue.ceiling", q.ceiling))
                           if v is not None and v != Percent(100.0)), ("", None))
        if value is None or not self.d.shaping:
            return None
        bps = resolve_rate(value, iface.rate)
        if bps is None:
            self.found.error("QOS121", f"service '{s.name}' {key.split('.')[1]} is a percentage, but "
                             f"{self.device.name}:{iface.name} has no speed to make it the bit/s of `shape average`",
                             s.where.at(key), "set the interface speed, or give the cap in bit/s")
            return None
        bps = min(bps, iface.rate) if iface.rate else bps
        if not self.shape_fits(bps, f"service '{s.name}' {key.split('.')[1]} on {iface.name}", s.where.at(key),
                               f"no {key.split('.')[1]} to leave the class unshaped"):
            return None
        return (at(["shape", "average", bps], s.where, key),
                f"may borrow up to {key.split('.')[1]} {format_rate(bps)} (shape average)")

    def shape_fits(self, bps: int, what: str, loc: Location | None, unshaped: str) -> bool:
        """Whether `shape average <bps>` is within the dialect's range (its command table: Cisco-IOS-XE-policy
        YANG); QOS121 at `loc` when not, its hint at the bound crossed (above the maximum, also `unshaped`: how to
        leave it unshaped)."""
        found = arg_range(self.platform.name, "policy-map-class", "shape average", "rate")
        if found is None or found[0] <= bps <= found[1]:
            return True
        low, high = found
        self.found.error("QOS121", f"{what} is shaped at {bps} bit/s, outside the `shape average` range "
                         f"{low}..{high} bit/s of {self.platform.name}", loc,
                         f"give a rate of at least {low} bit/s ({format_rate(low)})" if bps < low else
                         f"give a rate of at most {high} bit/s ({format_rate(high)}), or {unshaped}")
        return False


def _signed(err: float) -> str:
    """A relative error as a signed percentage: +0.2%, -6.0%, +2258%."""
    pct = 100 * err
    return f"{pct:+.0f}%" if abs(pct) >= 10 else f"{pct:+.1f}%"

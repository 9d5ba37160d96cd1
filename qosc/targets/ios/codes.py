"""Diagnostic codes of the IOS targets (moved from qosc.codes LEGACY_TARGETS).

QOS121-QOS124, QOS186, QOS188, QOS189, QOS193 and QOS194 are reported by both lowerings; each code has one
owner, so the shared ones belong to ios-mqc and catalyst6500 reports them too.
QOS124 once meant two things; the shared-policer case is now QOS130.
"""

from __future__ import annotations

from qosc.codes import Code

_M, _C = "ios-mqc", "catalyst6500"

MQC_CODES: tuple[Code, ...] = (
    Code("QOS130", "ios", "warning", "one policer shared by several classes polices each class separately", _M),
    Code("QOS120", "ios", "error", "precedence clash on a platform that classifies by precedence", _M),
    Code("QOS121", "ios", "error", "value outside what the IOS dialect accepts", _M),
    Code("QOS122", "ios", "info", "AF drop precedences of one precedence (or CoS) share one WRED profile", _M),
    Code("QOS123", "ios", "error", "ECN on a release without it", _M),
    Code("QOS124", "ios", "warning", "colour-aware policer rendered colour-blind", _M),
    Code("QOS131", "ios", "error", "rate above what the dialect's police command accepts (classic IOS: 2 Gbit/s)", _M),
    Code("QOS132", "ios", "error", "two-rate policer on a release without two-rate policing (IOS 12.0S)", _M),
    Code("QOS133", "ios", "error",
         "bandwidth or priority in kbit/s above the release's maximum, with no percent or remaining form", _M),
    Code("QOS138", "ios", "warning", "shares written as bandwidth remaining ratio that leave part of what strict "
         "classes leave over: each class is guaranteed more than its share", _M),
    Code("QOS134", "ios", "error", "queue buffer on an IOS XE class without a share (no bandwidth, shape or priority)",
         _M),
    Code("QOS139", "ios", "error", "queue.aqm the platform does not have (codel: IOS has WRED or tail drop)", _M),
    Code("QOS191", "ios", "error", "rate cap or ceiling on a class that is not strict (classic IOS and the PFC "
         "cap priority classes only)", _M),
    Code("QOS180", "ios", "info", "precedence matching takes undeclared code points and no IPv6 into a class", _M),
    Code("QOS181", "ios", "info", "a buffer the platform cannot configure beside WRED (thresholds only)", _M),
    Code("QOS183", "ios", "info", "drop profile that is not the one linear WRED ramp the platform runs", _M),
    Code("QOS184", "ios", "info", "priority between bandwidth classes, which MQC does not have", _M),
    Code("QOS185", "ios", "warning", "bandwidth remaining ratios (1..1000) that cannot keep a class's proportion "
         "within 5%", _M),
    Code("QOS186", "ios", "error", "sub-interface (unit:, or a dotted name) on a dialect that writes no shaper: IOS "
         "queues on a sub-interface only under one", _M),
    Code("QOS193", "ios", "warning", "an EXP or PCP drop precedence the platform cannot carry (no discard-class on "
         "12.0S, no DEI on IOS or the PFC): those values travel at drop precedence low", _M),
    Code("QOS194", "ios", "warning", "an EXP or PCP rewrite or trust the platform renders otherwise than the policy "
         "asks (one value per class, EXP kept on 12.0S, one trusted marking per PFC port)", _M),
    Code("QOS188", "ios", "error", "a marking domain the platform cannot render (MPLS on the PFC, CoS marking on "
         "12.0S, a DSCP and an EXP per policer colour on 12.0S)", _M),
    Code("QOS189", "ios", "error", "an RFC 3270 tunnel model the Cisco platform is not rendered for (pipe, "
         "uniform)", _M),
)

CATALYST_CODES: tuple[Code, ...] = (
    Code("QOS125", "ios", "error", "more WRR queues than the port type has", _C),
    Code("QOS126", "ios", "error", "precedence clash without a free CoS", _C),
    Code("QOS127", "ios", "warning", "strict-priority service on a port without a priority queue", _C),
    Code("QOS128", "ios", "warning", "WRED drop profile on a tail-drop port type", _C),
    Code("QOS129", "ios", "error", "remark the PFC policed-DSCP map cannot express", _C),
    Code("QOS135", "ios", "warning", "PFC policer bucket below rate/4000 bytes", _C),
    Code("QOS136", "ios", "warning", "a queue's owner and sharer on one CoS, so on one drop threshold", _C),
    Code("QOS137", "ios", "info", "IPv6 classifier rule on a PFC generation without IPv6 QoS", _C),
    Code("QOS195", "ios", "warning", "strict-priority rate cap the PFC cannot write (its priority queue has no "
         "rate: only an edge policer caps it), so not written", _C),
)

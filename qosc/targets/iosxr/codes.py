"""The iosxr target's diagnostic codes: QOS240-QOS251 (QOS247 is the reader's)."""

from __future__ import annotations

from qosc.codes import Code

_C = "compile"
CODES = (
    Code("QOS240", _C, "error", "more classes or strict levels than the IOS XR platform has", "iosxr"),
    Code("QOS241", _C, "error", "strict class whose cap IOS XR cannot write (no interface speed, outside the range)",
         "iosxr"),
    Code("QOS242", _C, "info", "what IOS XR does with the policy's priorities between non-strict classes", "iosxr"),
    Code("QOS243", _C, "error", "value outside what the IOS XR platform accepts", "iosxr"),
    Code("QOS244", _C, "error", "feature the IOS XR platform does not have", "iosxr"),
    Code("QOS245", _C, "info", "share or buffer rounded to what IOS XR writes", "iosxr"),
    Code("QOS246", _C, "error|warning", "marking IOS XR cannot realise as the policy asks", "iosxr"),
    Code("QOS247", "read back", "error", "IOS XR configuration text the reader cannot read", "iosxr"),
    Code("QOS248", _C, "info", "how the Cisco 8000 splits classification and queuing, said", "iosxr"),
    Code("QOS249", _C, "info", "a marking IOS XR keeps as it arrives, as the policy asks", "iosxr"),
    Code("QOS250", _C, "info", "platform values the output relies on that no Cisco text qosc read confirms, said",
         "iosxr"),
    Code("QOS251", _C, "info", "drop precedences sharing a WRED profile: an IOS XR class takes fewer profiles",
         "iosxr"),
)

"""Behaviour: what a device does with packets, vendor-neutral (model), from a policy (intent), compared (compare).

The read-back commands stand on it: `qosc verify` compares a device's
configuration, read back by its target's parser and interpreter, with the
policy's intent; `qosc equiv` compares two configurations of any vendors;
`qosc import` lifts behaviours into a policy.
"""

from __future__ import annotations

from qosc.behaviour.compare import Finding, Tolerance, compare
from qosc.behaviour.model import FAMILIES, Class, Curve, Device, Envelope, Interface, Rule
from qosc.behaviour.ownership import stale

__all__ = ["FAMILIES", "Class", "Curve", "Device", "Envelope", "Finding", "Interface", "Rule", "Tolerance",
           "compare", "stale"]

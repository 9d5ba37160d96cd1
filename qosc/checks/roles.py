"""QOS080-QOS082: interface roles do what their names promise."""

from __future__ import annotations

from collections.abc import Iterator

from qosc.checks.network import Scratch
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Device, Domain, Role


def check_roles(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    default = scratch.policy.default_service
    for i in d.interfaces:
        if i.role is Role.CORE and not i.classifier:
            continue  # (the common case: nothing to say)
        name = f"{d.name}:{i.name}"
        if i.role is Role.TRANSPARENT:
            if i.classifier:
                yield error("QOS080", f"transparent interface {name} has classifier '{i.classifier}', which "
                            "would remark DSCP", i.where.at("classifier"),
                            "transparent interfaces must keep every DSCP (DSCP 8 included); use role: edge")
            if Domain.DSCP not in i.trust:
                yield error("QOS080", f"transparent interface {name} does not trust DSCP, so it would remark "
                            "everything to the default service", i.where.at("trust"),
                            "remove trust: none (a transparent interface preserves DSCP)")
        elif i.role is Role.EDGE and not i.trust and not i.classifier and default:
            yield warning("QOS081", f"edge interface {name} trusts nothing and has no classifier: every packet "
                          f"is remarked to '{default.name}', including LBE's DSCP 8", i.where.at("trust", "role"),
                          "add a classifier, or trust: dscp")
        elif i.role is Role.CORE and i.classifier:
            yield error("QOS082", f"core interface {name} has a classifier; core interfaces trust DSCP",
                        i.where.at("classifier"), "use role: edge for a trust boundary")


DEVICE_RULES = (check_roles,)

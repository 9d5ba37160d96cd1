"""The IOS XR CLI statements qosc writes and reads, as forms onto Cisco's unified YANG model (qosc.grammar.cliyang).

Each form is the command as Cisco's IOS XR command references spell it, and
says which node of the unified model (Cisco-IOS-XR-um-policymap-classmap-cfg,
Cisco-IOS-XR-um-interface-cfg with Cisco-IOS-XR-um-if-service-policy-qos-cfg)
each value sets: `bandwidth percent 40` is `bandwidth {value 40; unit
percent}`, `random-detect dscp af11,af12 10 ms 20 ms` an entry of
`random-detect` keyed by its thresholds with af11 and af12 in its `dscp`
leaf-list.  The value types, ranges and enumerations are the YANG's
(qosc/targets/iosxr/yang/, derived by scripts/derive-iosxr-grammar); the
words around them, and the unit subsets a command takes, are the command
references'.
"""

from __future__ import annotations

from qosc.grammar.cliyang import CliForm

CMD = "Cisco IOS XR Modular QoS Command Reference (ASR 9000 Release 7.x; Cisco 8000 Release 7.x)"
RATE = "bps|kbps|mbps|gbps"
BURST = "bytes|kbytes|mbytes|gbytes|ms|us"
LIMIT = "bytes|kbytes|mbytes|ms|us|packets"
WRED = "bytes|kbytes|mbytes|ms|us|packets"


def _src(command: str) -> str:
    return f"{CMD}, {command}"


ROOT = "config"

CONFIG = (
    CliForm("class-map match-any {class-map/type/qos/class-map-name} {class-map/type/qos/match-any=}",
            _src("class-map"), "class-map", "class-map/type/qos"),
    CliForm("class-map match-all {class-map/type/qos/class-map-name} {class-map/type/qos/match-all=}",
            _src("class-map"), "class-map", "class-map/type/qos"),
    CliForm("policy-map {policy-map/type/qos/policy-map-name}", _src("policy-map"), "policy-map",
            "policy-map/type/qos"),
    CliForm("interface {interfaces/interface/interface-name}", _src("interface (service-policy)"), "interface",
            "interfaces/interface"),
)


def _address(direction: str) -> tuple[CliForm, ...]:
    base = f"match/{direction}-address"
    return (CliForm(f"match {direction}-address ipv4 {{{base}/ipv4/address-prefix/address}} "
                    f"{{{base}/ipv4/address-prefix/netmask}}", _src(f"match {direction}-address")),
            CliForm(f"match {direction}-address ipv6 {{{base}/ipv6/address-prefix/address}} "
                    f"{{{base}/ipv6/address-prefix/prefix-length}}", _src(f"match {direction}-address")))


CLASS_MAP = (
    CliForm("description {description}", _src("description (class-map)")),
    CliForm("match dscp {match/dscp/value+}", _src("match dscp (IPv4 and IPv6)")),
    CliForm("match dscp ipv4 {match/dscp-ipv4/value+}", _src("match dscp ipv4")),
    CliForm("match dscp ipv6 {match/dscp-ipv6/value+}", _src("match dscp ipv6")),
    CliForm("match precedence {match/precedence/value+}", _src("match precedence")),
    CliForm("match mpls experimental topmost {match/mpls/experimental/topmost/label+}",
            _src("match mpls experimental topmost")),
    CliForm("match cos {match/cos/value+}", _src("match cos")),
    CliForm("match traffic-class {match/traffic-class/id+}", _src("match traffic-class (Cisco 8000)")),
    CliForm("match qos-group {match/qos-group/id+}", _src("match qos-group")),
    CliForm("match discard-class {match/discard-class/id+}", _src("match discard-class")),
    CliForm("match protocol {match/protocol/number+}", _src("match protocol")),
    CliForm("match source-port {match/source-port/number+}", _src("match source-port")),
    CliForm("match destination-port {match/destination-port/port-number+}", _src("match destination-port")),
    *_address("source"),
    *_address("destination"),
)

POLICY_MAP = (
    CliForm("description {description}", _src("description (policy-map)")),
    CliForm("class {class/name} {class/type=qos}", _src("class (policy-map)"), "class", "class"),
    CliForm("class type qos {class/name} {class/type=qos}", _src("class (policy-map)"), "class", "class"),
)


def _set(prefix: str, command: str) -> tuple[CliForm, ...]:
    """The `set` actions of a class (prefix 'set') or of a police colour (prefix '<colour>-action/set')."""
    return tuple(CliForm(f"{words} {{{prefix}/{leaf}}}", _src(command)) for words, leaf in (
        ("set dscp", "dscp"), ("set precedence", "precedence"), ("set discard-class", "discard-class"),
        ("set qos-group", "qos-group"), ("set cos", "cos"),
        ("set mpls experimental imposition", "mpls/experimental/imposition"),
        ("set mpls experimental topmost", "mpls/experimental/topmost")))


def _wred(field: str | None) -> CliForm:
    values = f" {field} {{random-detect/{field},}}" if field else ""
    return CliForm(f"random-detect{values} {{random-detect/minimum-threshold-value}} "
                   f"{{random-detect/minimum-threshold-unit:{WRED}}} {{random-detect/maximum-threshold-value}} "
                   f"{{random-detect/maximum-threshold-unit:{WRED}}}", _src(f"random-detect {field or ''}".strip()))


_POLICE_TAIL = (f"[burst {{police/burst/value}} {{police/burst/unit:{BURST}}}] [peak-rate {{police/peak-rate/value}} "
                f"{{police/peak-rate/unit:{RATE}}}] [peak-burst {{police/peak-burst/value}} "
                f"{{police/peak-burst/unit:{BURST}}}]")
_POLICE = f"police rate {{police/rate/value}} {{police/rate/unit:{RATE}}} {_POLICE_TAIL}"
_POLICE_PERCENT = f"police rate percent {{police/rate/value}} {{police/rate/unit=percent}} {_POLICE_TAIL}"

CLASS = (
    CliForm("priority level {priority/level}", _src("priority (level)")),
    CliForm("bandwidth percent {bandwidth/value} {bandwidth/unit=percent}", _src("bandwidth")),
    CliForm(f"bandwidth {{bandwidth/value}} {{bandwidth/unit:{RATE}}}", _src("bandwidth")),
    CliForm("bandwidth remaining percent {bandwidth-remaining/value} {bandwidth-remaining/unit=percent}",
            _src("bandwidth remaining")),
    CliForm("bandwidth remaining ratio {bandwidth-remaining/value} {bandwidth-remaining/unit=ratio}",
            _src("bandwidth remaining")),
    CliForm(f"queue-limit {{queue-limits/queue-limit/value}} {{queue-limits/queue-limit/unit:{LIMIT}}}",
            _src("queue-limit")),
    _wred("dscp"), _wred("exp"), _wred("precedence"), _wred("discard-class"), _wred(None),
    CliForm("random-detect ecn {random-detect-ecn=}", _src("random-detect ecn")),
    CliForm(_POLICE, _src("police rate"), "police", "police"),
    CliForm(_POLICE_PERCENT, _src("police rate"), "police", "police"),
    CliForm(f"shape average {{shape/average/rate/value}} {{shape/average/rate/unit:{RATE}}}", _src("shape average")),
    CliForm("shape average percent {shape/average/rate/value} {shape/average/rate/unit=percent}",
            _src("shape average")),
    CliForm("service-policy {service-policy/name}", _src("service-policy (policy-map class)")),
    CliForm("set traffic-class {set/traffic-class}", _src("set traffic-class (Cisco 8000)")),
    *_set("set", "set"),
)

POLICE = tuple(form for colour in ("conform", "exceed", "violate") for form in (
    CliForm(f"{colour}-action transmit {{{colour}-action/transmit=}}", _src(f"{colour}-action")),
    CliForm(f"{colour}-action drop {{{colour}-action/drop=}}", _src(f"{colour}-action")),
    *(CliForm(f"{colour}-action {f.pattern}", f.source) for f in _set(f"{colour}-action/set", f"{colour}-action")),
))

INTERFACE = (
    CliForm("service-policy input {service-policy/input/service-policy-name}", _src("service-policy (interface)")),
    CliForm("service-policy output {service-policy/output/service-policy-name}", _src("service-policy (interface)")),
)

MODES = {ROOT: CONFIG, "class-map": CLASS_MAP, "policy-map": POLICY_MAP, "class": CLASS, "police": POLICE,
         "interface": INTERFACE}
"""Every mode of the dialect and its forms."""

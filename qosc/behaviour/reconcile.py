"""What import writes: the lifted policy checked by the policy's own checks, what would make it invalid left out
and named at its configuration line, and the reconciliation of the configuration's QoS objects.

- `settle(lifted, path)`: the policy text is validated in memory (load, schema, build, semantic checks and every
  target's checks, as `qosc validate` does); each error is traced to the object of the policy it is about (the
  innermost service, interface, classifier rule, policer or drop profile around its line), that object is left
  out with every reference to it, and the classes, rules or interfaces it was lifted from are named (QOS172, at
  the configuration line, with the error); again until the policy validates.  An error no object can be left
  out for, or a policy with no service or interface left, writes nothing.  Before anything is left out for an
  error at a service's share, a share that is not a whole percentage (the policy takes it, a target may not:
  JUNOS's `transmit-rate percent`, IOS's `bandwidth percent`) is lifted as the whole percentage below it, the
  nearest value that promises no more than the configuration guarantees, and the difference is said at the
  class's configuration line (QOS207): one share a target cannot write exactly never costs the service, and
  with the default service every other one (QOS032).
- `lift_settled(devices, ...)`: lift and settle; where settle left an interface out whole, the devices are lifted
  again without it (until none is): the policy is the lift of the interfaces it holds, so a service's queue, code
  points and values never come from an interface left out (a service first met on one kept that one's queue).
- `reconcile(devices, lifted)`: every QoS object a reader saw (Device.seen) is lifted (an element the policy holds
  is made of it: Device.uses) or named as not lifted: where no diagnostic named it at its line yet, a QOS172
  there says whether it is applied to no interface (it does nothing) or applied and not lifted; and one QOS202
  states the count: seen = lifted + named.
- `relocate`: the written policy's own diagnostics about an imported object again at its configuration line.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from qosc.behaviour.lift import lift
from qosc.behaviour.liftable import Element, element
from qosc.behaviour.lifted import Lifted, yaml_spans
from qosc.behaviour.model import Device
from qosc.diagnostics import Diagnostic, Severity, warning
from qosc.errors import InputError

MAX_ROUNDS = 64


def render(policy: dict[str, Any], header: str) -> str:
    return header + yaml.safe_dump(policy, sort_keys=False, allow_unicode=True)


def check(text: str, path: str) -> list[Diagnostic]:
    """`qosc validate` of a policy text, in memory (its locations name `path`)."""
    from qosc import load
    from qosc.pipeline.units import target_checks
    from qosc.pipeline.validation import validate_stages

    try:
        tree = load.load_text(text, path)
    except InputError as exc:
        return exc.diagnostics
    result, _, targets_ok = validate_stages(path, tree)
    if result.policy is not None and targets_ok:
        result.diagnostics.extend(target_checks(result.policy))
    return sorted(set(result.diagnostics), key=Diagnostic.sort_key)


def relocate(lifted: Lifted, diagnostics: Sequence[Diagnostic], policy_text: str, policy_path: str
             ) -> list[Diagnostic]:
    """The diagnostics of the written policy that have a configuration origin, again at that origin: a flaw of
    the configuration (shares above 100%, LBE above best effort) is reported at its own line, unless the lift
    already said it there (a strict class lifted uncapped: QOS046, with why the configuration has no cap)."""
    spans = yaml_spans(policy_text)
    said = {(d.code, d.location) for d in lifted.diagnostics}
    out = []
    for d in diagnostics:
        if d.location is None or d.location.file != policy_path:
            continue
        path = next((p for p, lo, hi in spans if lo <= d.location.line <= hi and p in lifted.origins), None)
        if path is not None and (d.code, lifted.origins[path]) not in said:
            out.append(replace(d, location=lifted.origins[path],
                               message=f"{d.message} (imported as {'.'.join(path)}, {d.location})"))
    return out


@dataclass
class Settled:
    text: str | None
    """The policy text to write; None when no valid policy is left."""
    diagnostics: list[Diagnostic]
    """What was left out (QOS172 at the configuration) and, when nothing can be written, the errors why."""
    checked: list[Diagnostic]
    """`qosc validate`'s diagnostics of the text (warnings only: it has no error)."""
    left_out: dict[Element, Diagnostic] = field(default_factory=dict)
    """The interfaces read back that were left out whole, with the QOS172 naming each (lift_settled lifts again
    without them)."""


_FIELDS = {("queue", "ecn"), ("queue", "buffer"), ("queue", "ceiling"), ("drop-profile",), ("policer",)}
"""What of an imported service can be left out alone, the rest of the service kept (a target without ECN, a
buffer the platform cannot set)."""
_PORT_FIELDS = {"port-type", "trust", "classifier", "shape"}


def _field(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """A field of a service or interface an error at `path` is about, where it can be left out on its own."""
    if path[:1] == ("services",) and len(path) >= 3:
        for tail in _FIELDS:
            if path[2:2 + len(tail)] == tail:
                return path[:2 + len(tail)]
    if path[:1] == ("devices",) and len(path) >= 5 and path[2] == "interfaces" and path[4] in _PORT_FIELDS:
        return path[:5]
    if path[:1] == ("classifiers",) and len(path) >= 5 and path[2] == "rules" and path[4] == "mark":
        return path[:5]  # `mark: false` a target cannot keep (JUNOS marks by the egress rewrite: QOS114): it marks
    return None


def _target(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The object of the policy an error at `path` is about, by the policy's layout."""
    field = _field(path)
    if field is not None:
        return field
    if path[:1] in (("services",), ("policers",), ("drop-profiles",)) and len(path) >= 2:
        return path[:2]
    if path[:1] == ("classifiers",) and len(path) >= 4 and path[2] == "rules":
        return path[:4]
    if path[:1] == ("classifiers",) and len(path) >= 2:
        return path[:2]
    if path[:1] == ("devices",) and len(path) >= 4 and path[2] == "interfaces":
        return path[:4]
    return None


def settle(lifted: Lifted, path: str, header: str) -> Settled:
    """The lifted policy as a text `qosc validate` accepts (see the module doc)."""
    named: list[Diagnostic] = []
    rounded: dict[str, Diagnostic] = {}
    gone: dict[Element, Diagnostic] = {}
    for _ in range(MAX_ROUNDS):
        if not _something(lifted.policy):
            return _nothing(lifted, named, [])
        text = render(lifted.policy, header)
        checked = check(text, path)
        errors = [d for d in checked if d.is_error]
        if not errors:
            kept = [d for name, d in rounded.items() if name in lifted.policy["services"]]
            return Settled(text, kept + named, checked, gone)
        blamed = _blame(errors, yaml_spans(text), path)
        if _round_down(lifted, blamed, rounded):
            continue
        doomed: dict[tuple[str, ...], Diagnostic] = {}
        for d, inner in blamed:
            target = next((t for t in (_target(p) for p in inner) if t is not None), None)
            if target is not None:  # one about the whole device (too many queues) may settle with the rest
                doomed.setdefault(target, d)
        if not doomed:
            return _nothing(lifted, [*named, *errors], checked)
        # the least first: a field, then a service or profile, then an interface (dropping a service that clashes
        # with another often settles the device-wide errors an interface was blamed for)
        least = min(_rank(t) for t in doomed)
        for target, why in doomed.items():
            if _rank(target) == least:
                said = _leave_out(lifted, target, why)
                if target[0] == "devices" and len(target) == 4 and (target[1], target[3]) in lifted.interfaces:
                    gone[lifted.interfaces[(target[1], target[3])]] = said[0]
                named += said
    return _nothing(lifted, named, [])


def lift_settled(devices: Sequence[Device], name: str, path: str, header: str) -> tuple[Lifted, Settled]:
    """The devices lifted (qosc.behaviour.lift) and settled; where settle left an interface out whole, the devices
    are lifted again without it, until no interface is left out: what the policy holds is made of the interfaces
    it keeps alone (a service's queue never comes from an interface left out, nor does a QOS173 compare with one),
    and the QOS172 naming each interface left out is kept."""
    gone: dict[Element, Diagnostic] = {}
    while True:
        kept = [replace(d, interfaces=tuple(i for i in d.interfaces if element("interface", d.name, i) not in gone))
                for d in devices]
        lifted = lift(kept, name)
        settled = settle(lifted, path, header)
        if not settled.left_out or settled.text is None:
            settled.diagnostics[:0] = list(gone.values())
            return lifted, settled
        gone.update(settled.left_out)


def _blame(errors: list[Diagnostic], spans: list[tuple[tuple[str, ...], int, int]], path: str
           ) -> list[tuple[Diagnostic, list[tuple[str, ...]]]]:
    """Each error with the key paths of the policy text around its line, innermost first (the order of `spans`):
    the error lines are found in each span by bisection, not every span tested against every error (a policy of
    a thousand units has tens of thousands of spans and, before settling, as many errors)."""
    lines = sorted({d.location.line for d in errors if d.location is not None and d.location.file == path})
    around: dict[int, list[tuple[str, ...]]] = {line: [] for line in lines}
    for key, lo, hi in spans:
        for line in lines[bisect.bisect_left(lines, lo):bisect.bisect_right(lines, hi)]:
            around[line].append(key)
    return [(d, list(around[d.location.line]) if d.location is not None and d.location.file == path else [])
            for d in errors]


def _round_down(lifted: Lifted, blamed: list[tuple[Diagnostic, list[tuple[str, ...]]]],
                rounded: dict[str, Diagnostic]) -> bool:
    """Each service share an error is about that is not a whole percentage, as the whole percentage below it (at
    least 1 %; a share already whole is left to the rest of settle); QOS207 for each in `rounded`.  True when one
    was changed (the policy is checked again before anything is left out)."""
    changed = False
    for why, inner in blamed:
        for target in inner:
            if len(target) != 4 or target[0] != "services" or target[2:] != ("queue", "share"):
                continue
            name, queue = target[1], lifted.policy["services"][target[1]].get("queue", {})
            share = str(queue.get("share", ""))
            try:
                value = float(share.removesuffix("%"))
            except ValueError:
                continue
            whole = math.floor(value + 1e-9)
            if not share.endswith("%") or whole == value or whole < 1:
                continue
            queue["share"] = f"{whole}%"
            changed = True
            rounded[name] = warning(  # once: a whole share is not rounded again
                "QOS207", f"service {name}: share {share} is lifted as {whole}%, the whole percentage below it: "
                f"{why.code} {why.message}", lifted.origins.get(("services", name)),
                "the policy promises no more than the configuration guarantees; write the share by hand if a "
                "target that takes fractions (Linux) should keep it")
    return changed


def _nothing(lifted: Lifted, named: list[Diagnostic], checked: list[Diagnostic]) -> Settled:
    """No policy is written: nothing of the configurations is lifted (the reconciliation names every object)."""
    lifted.elements.clear()
    return Settled(None, named, checked)


def _rank(target: tuple[str, ...]) -> int:
    if _field(target) == target:
        return 0
    return 2 if target[0] == "devices" else 1


def _something(policy: dict[str, Any]) -> bool:
    return bool(policy.get("services")) and any(d.get("interfaces") for d in policy.get("devices", {}).values())


def _leave_out(lifted: Lifted, target: tuple[str, ...], why: Diagnostic) -> list[Diagnostic]:
    """Remove one object from the lifted policy with every reference to it; QOS172 at its configuration line."""
    policy = lifted.policy
    kind, name = target[0], target[1]
    origin = lifted.origins.get(target[:2]) or lifted.origins.get(target)
    reason = f"{why.code} {why.message}"
    gone: set[Element] = set()
    if _field(target) == target:
        holder: Any = policy
        for key in target[:-1]:
            holder = holder[int(key)] if isinstance(holder, list) else holder[key]
        holder.pop(target[-1], None)
        if kind == "classifiers":
            what = (f"`mark: false` (the rule marks the service's code point) of rule {holder.get('name')} of "
                    f"classifier {name}")
        else:
            what = f"{'.'.join(target[2:] if kind == 'services' else target[4:])} of " + (
                f"service {name}" if kind == "services" else f"interface {target[3]}")
            origin = lifted.origins.get(target[:2] if kind == "services" else target[:4]) or origin
    elif kind == "services":
        policy["services"].pop(name, None)
        gone |= lifted.carriers.get(name, set())
        for dev in policy["devices"].values():
            for body in dev["interfaces"].values():
                if name in body.get("services", []):
                    body["services"].remove(name)
        for _cname, body in list(policy.get("classifiers", {}).items()):
            body["rules"] = [r for r in body["rules"] if r.get("service") != name]
        what = f"service {name}"
    elif kind == "devices":
        policy["devices"][name]["interfaces"].pop(target[3], None)
        iface = lifted.interfaces.get((name, target[3]))
        gone |= {e for e in lifted.elements if iface is not None and e[1:4] == iface[1:4]}
        origin = lifted.origins.get(target) or origin
        what = f"interface {target[3]} of {name}"
    elif kind == "classifiers" and len(target) == 4:
        rules = policy["classifiers"][name]["rules"]
        index = int(target[3])
        rule = rules.pop(index) if index < len(rules) else {}
        gone |= lifted.rule_elements.get((name, str(rule.get("name"))), set())
        what = f"rule {rule.get('name')} of classifier {name}"
    else:
        policy.get(kind, {}).pop(name, None)
        field = {"classifiers": "classifier", "policers": "policer", "drop-profiles": "drop-profile"}[kind]
        _unreference(policy, field, name)
        what = f"{field} {name}"
    _tidy(policy)
    lifted.elements -= gone
    return [warning("QOS172", f"{what} not lifted: the imported policy would not validate ({reason})",
                    origin, "the rest of the configuration is imported; set this part by hand if it is wanted")]


def _unreference(policy: dict[str, Any], field: str, name: str) -> None:
    for body in policy.get("services", {}).values():
        if body.get(field) == name:
            del body[field]
        elif isinstance(body.get(field), dict):
            body[field] = {k: v for k, v in body[field].items() if v != name} or None
            if body[field] is None:
                del body[field]
    for cbody in policy.get("classifiers", {}).values():
        for rule in cbody["rules"]:
            if rule.get(field) == name:
                del rule[field]
    for dev in policy.get("devices", {}).values():
        for body in dev["interfaces"].values():
            if body.get(field) == name:
                del body[field]


def _tidy(policy: dict[str, Any]) -> None:
    """Classifiers without rules, profiles and policers nothing uses any more: gone too."""
    for cname in [n for n, b in policy.get("classifiers", {}).items() if not b["rules"]]:
        del policy["classifiers"][cname]
        _unreference(policy, "classifier", cname)
    used = _values({k: v for k, v in policy.items() if k not in ("drop-profiles", "policers")})
    for section in ("drop-profiles", "policers"):
        for pname in [n for n in policy.get(section, {}) if n not in used]:
            del policy[section][pname]
        if section in policy and not policy[section]:
            del policy[section]
    if "classifiers" in policy and not policy["classifiers"]:
        del policy["classifiers"]


def _values(node: Any) -> set[str]:
    """Every string value (not key) in a policy tree: the names of the profiles and policers it references (a
    walk, linear in the policy; dumping the policy as YAML per object left out made settle quadratic)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found.add(item)
    return found


@dataclass
class Reconciled:
    diagnostics: list[Diagnostic]
    seen: int = 0
    lifted: int = 0
    named: int = 0
    idle: int = 0
    """Of the named: applied to no interface (they do nothing on the device)."""

    @property
    def clean_nothing(self) -> bool:
        """Nothing the configurations apply was left out: every object not lifted does nothing."""
        return self.named == self.idle


def reconcile(devices: Sequence[Device], lifted: Lifted, said: Sequence[Diagnostic], source: str) -> Reconciled:
    """QOS172 for each object seen that is neither lifted nor named yet, and the QOS202 count (module doc)."""
    out = Reconciled([])
    lines = {(d.location.file, d.location.line) for d in said if d.code == "QOS172" and d.location is not None}
    for device in devices:
        applied = {obj for _, obj in device.uses}
        made = {obj for element, obj in device.uses if (element[0], device.name, *element[1:]) in lifted.elements}
        for kind, name, where in dict.fromkeys(device.seen):
            out.seen += 1
            if (kind, name) in made:
                out.lifted += 1
                continue
            out.named += 1
            out.idle += (kind, name) not in applied
            if where is not None and (where.file, where.line) in lines:
                continue
            state = "applied to no interface: it does nothing" if (kind, name) not in applied else \
                "applied, but nothing made of it is in the imported policy (see above)"
            out.diagnostics.append(warning("QOS172", f"{kind} {name} not lifted: {state}", where))
            if where is not None:
                lines.add((where.file, where.line))
    out.diagnostics.append(Diagnostic(
        "QOS202", Severity.INFO, f"import of {source}: {out.seen} QoS object(s) seen = {out.lifted} lifted + "
        f"{out.named} named as not lifted (QOS172), {out.idle} of them applied to no interface", None))
    return out

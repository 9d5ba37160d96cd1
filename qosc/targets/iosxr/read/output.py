"""One IOS XR interface as behaviour: its output policy's classes, classification, marks and edge rules."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import qosc.targets.iosxr.read.config as ip
from qosc.behaviour.model import Class, Curve, Interface, Rule
from qosc.tree import Statement


def service_name(class_map: str) -> str:
    """The queue a class-map of qosc's stands for: its name without the trusted markings (-exp, -pcp, -only where
    it matches no DSCP) and drop precedence (-dpN) qosc adds to the class-maps of one queue."""
    return re.sub(r"(-exp)?(-pcp)?(-only)?(-dp\d+)?$", "", class_map) or class_map


def _classes(policy: Statement | None) -> list[tuple[str, tuple[Statement, ...], Statement]]:
    return [(cls.texts()[-1], cls.children or (), cls) for cls in (policy.children or () if policy else ())
            if cls.texts()[:1] == ("class",)]


def _down(share: float) -> float:
    """A share rounded down to 4 decimals (float noise aside): remaining-ratio shares read back never add up to
    more than what the priority classes leave (rounded to nearest, 40 + 0.9616 + 49.0385 + a 10% cap is 100.0001%,
    which the policy's own check refuses)."""
    return math.floor(share * 10000 + 1e-6) / 10000


def _curve(lo: int, hi: int, limit: int | None) -> Curve | None:
    if not limit:
        return None
    return Curve(((round(100 * lo / limit, 4), 0.0), (round(100 * hi / limit, 4), 100.0)), True, 100.0)


def _class(name: str, body: tuple[Statement, ...], at: Statement, codes: list[int], ratios: int,
           rate: int | None) -> Class:
    strict, share, cap_rate, limit, ecn = False, None, None, None, False
    cap_pct: float | None = None
    buffer = None
    drops: list[tuple[int, Curve]] = []
    wred: list[tuple[str | None, str, int, int]] = []
    for s in body:
        w = s.texts()
        if w[:2] == ("priority", "level"):
            strict = True
        elif w[:2] == ("bandwidth", "percent"):
            share = float(w[2])
        elif w[:3] == ("bandwidth", "remaining", "ratio") and ratios:
            share = 100.0 * int(w[3]) / ratios  # of what priority classes leave: rounded below
        elif w[:1] == ("bandwidth",) and len(w) == 3 and rate:
            share = round(100.0 * ip.rate(w[1], w[2]) / rate, 4)
        elif w[:3] == ("police", "rate", "percent") or (w[:3] == ("shape", "average", "percent") and strict):
            cap_pct = float(w[3])
        elif w[:1] == ("police",):
            cap_rate = ip.police(s)[0].cir
        elif w[:2] == ("shape", "average") and strict:
            cap_rate = ip.rate(w[2], w[3])
        elif w[:1] == ("queue-limit",):
            if w[2] in ip.TIME_UNITS:
                limit = ip.time_us(w[1], w[2])
                buffer = ("us", float(limit))
            else:
                buffer = ("bytes" if w[2] in ip.SIZE_UNITS else w[2], float(ip.size(w[1], w[2])))
        elif w[:2] == ("random-detect", "ecn"):
            ecn = True
        elif w[:1] == ("random-detect",):
            field = w[1] if not w[1].isdigit() else None
            nums = w[3:] if field else w[1:]
            wred.append((field, w[2] if field else "", ip.time_us(nums[0], nums[1]), ip.time_us(nums[2], nums[3])))
    for field, values, lo, hi in wred:
        curve = _curve(lo, hi, limit)
        if curve is None:
            continue
        if field is None:
            drops.append((0, curve))
        elif field == "discard-class":
            drops += [(int(v) + 1, curve) for v in values.split(",")]
        elif field == "dscp":
            drops += [(p, curve) for p in sorted(ip.precedence_of(ip._dscp(values)))]
    cap = cap_pct if cap_pct is not None else round(100.0 * cap_rate / rate, 6) if cap_rate and rate else None
    return Class(name, share=share, strict=strict, cap=cap, cap_rate=None if cap else cap_rate, buffer=buffer,
                 drop=tuple(sorted(drops, key=lambda d: d[0])), ecn=ecn, origin=ip._origin(at))


def interface(c: ip.Config, s: Statement) -> Interface | None:
    name = s.texts()[1]
    bound = {w[1]: w[2] for w in (x.texts() for x in s.children or ()) if w[:1] == ("service-policy",) and
             len(w) == 3}
    if not bound:
        return None
    out = c.policies.get(bound.get("output", ""))
    inp = c.policies.get(bound.get("input", ""))
    rate = shape = None
    classes_of = _classes(out)
    if len(classes_of) == 1 and classes_of[0][0] == "class-default":
        body = classes_of[0][1]
        child = next((b.texts()[1] for b in body if b.texts()[:1] == ("service-policy",)), None)
        sh = next((b.texts() for b in body if b.texts()[:2] == ("shape", "average")), None)
        if child is not None and sh is not None:
            rate = shape = ip.rate(sh[2], sh[3])
            out = c.policies.get(child)
            classes_of = _classes(out)
    # the input policy's classes: traffic-class they set, their discard-class (drop precedence), EXP imposed
    rules, others = ip.rules_of(c, inp) if inp is not None else ([], [])
    tc_names = {tc: service_name(srcs[0][0]) for tc, srcs in c.tc.items() if srcs}
    ratios = sum(int(b.texts()[3]) for _, body, _ in classes_of for b in body
                 if b.texts()[:3] == ("bandwidth", "remaining", "ratio"))
    classes: list[Class] = []
    classify: list[list[str | None]] = [[None] * 64, [None] * 64]
    exp: list[tuple[str, int] | None] = [None] * 8
    pcp: list[tuple[str, int] | None] = [None] * 8
    declared: set[int] = set()
    marks: list[tuple[str, str, int, int]] = []
    default_name = None
    for cname, body, at in classes_of:
        sources = [(cname, 1)]
        label = service_name(cname) if cname != "class-default" else cname
        if cname != "class-default":
            m = ip.matches(c, cname)
            if m["tc"]:
                tc = m["tc"][0]
                label = tc_names.get(tc, cname)
                sources = list(c.tc.get(tc, []))
        else:
            default_name = label
        classes.append(_class(label, body, at, [], ratios, rate))
        if cname == "class-default":
            continue
        for src, prec in sources:
            m = ip.matches(c, src)
            for f, fam in ((0, "inet"), (1, "inet6")):
                for code in m[fam]:
                    if classify[f][code] is None:
                        classify[f][code] = label
                    declared.add(code)
            own = m if src == cname else None  # Cisco 8000: EXP and PCP from the interface's own input policy
            for table, key in ((exp, "exp"), (pcp, "pcp")):
                for v in own[key] if own is not None else []:
                    if table[v] is None:
                        table[v] = (label, prec)
        st = ip.sets(body)
        for key, dom in (("mpls experimental topmost", "exp"), ("cos", "pcp")):
            if key in st:
                marks += [(dom, label, p, int(st[key])) for p in (1, 2, 3)]
    if ratios:  # remaining ratios share what the priority classes leave
        left = 100.0 - sum(cl.cap or 0.0 for cl in classes if cl.strict)
        classes = [replace(cl, share=_down(cl.share * left / 100)) if cl.share is not None and not cl.strict
                   else cl for cl in classes]
    for src, st in others:  # Cisco 8000: the interface's own input classes classify EXP and PCP
        if "traffic-class" in st and src != "class-default":
            m = ip.matches(c, src)
            prec = int(st.get("discard-class", "0")) + 1
            for table, key in ((exp, "exp"), (pcp, "pcp")):
                for v in m[key]:
                    if table[v] is None:
                        table[v] = (service_name(src), prec)
    if default_name is not None:
        classify = [[x if x is not None else default_name for x in fam] for fam in classify]
        for table in (exp, pcp):
            if any(t is not None for t in table):
                for v in range(8):
                    table[v] = table[v] or (default_name, 1)
    st = ip.sets(()) if inp is None else dict(next((st for cn, st in others if cn == "class-default"), {}))
    unmatched = ip._dscp(st["dscp"])[0] if "dscp" in st else None
    edge = bool(rules) or unmatched is not None
    rules += _trusted(c, inp) if inp is not None and edge else []
    marks += _imposed(c, inp, classify, {cl.name for cl in classes}) if inp is not None else []
    rewrite = tuple(code if code in declared else None for code in range(64))
    return Interface(name.partition(".")[0], int(name.partition(".")[2] or 0), "edge" if edge else "core", rate,
                     shape, tuple(classes), (tuple(classify[0]), tuple(classify[1])), (rewrite, rewrite),
                     unmatched is None, tuple(rules), unmatched, (), tuple(exp), tuple(pcp), tuple(sorted(set(marks))),
                     origin=ip._origin(s))


def _trusted(c: ip.Config, inp: Statement) -> list[Rule]:
    """Input classes that police a trusted service's code points (match dscp, police)."""
    out = []
    for name, body, at in _classes(inp):
        cm = c.class_maps.get(name)
        pol = next((b for b in body if b.texts()[:1] == ("police",)), None)
        if cm is None or cm.texts()[1] != "match-any" or pol is None:
            continue
        codes = ip.matches(c, name)["inet"]
        env, _ = ip.police(pol)
        mark = int(env.conform.split()[1]) if env.conform.startswith("dscp") else (codes[0] if codes else None)
        out.append(Rule(f"police-{re.sub(r'-dp[0-9]+$', '', name)}", match_dscp=tuple(codes), mark=mark, policer=env,
                        origin=ip._origin(at)))
    return out


def _imposed(c: ip.Config, inp: Statement, classify: list[list[str | None]],
             queues: set[str]) -> list[tuple[str, str, int, int]]:
    """EXP the input policy imposes, per class the traffic is queued in and drop precedence."""
    out = []
    for name, body, _ in _classes(inp):
        st = ip.sets(body)
        pol = next((b for b in body if b.texts()[:1] == ("police",)), None)
        per: dict[int, int] = {}
        if "mpls experimental imposition" in st:
            per = {1: int(st["mpls experimental imposition"])}
        if pol is not None:
            _, actions = ip.police(pol)
            for n, colour in ((1, "conform"), (2, "exceed"), (3, "violate")):
                for line in actions.get(f"{colour}-action", []):
                    if line[:4] == ("set", "mpls", "experimental", "imposition"):
                        per[n] = int(line[4])
        if not per:
            continue
        mark = None
        if "dscp" in st:
            mark = ip._dscp(st["dscp"])[0]
        elif pol is not None:
            env, _ = ip.police(pol)
            mark = int(env.conform.split()[1]) if env.conform.startswith("dscp") else None
        codes = ip.matches(c, name)["inet"]
        code = mark if mark is not None else (codes[0] if codes else 0)
        cls = service_name(name) if service_name(name) in queues else \
            classify[0][code] if name != "class-default" else classify[0][0]
        if cls is None:
            continue
        for p in (1, 2, 3):
            value = per.get(p, per.get(2 if p == 3 and 2 in per else 1))
            if value is not None:
                out.append(("impose", cls, p, value))
    return out

"""linux-tc lowering, the 3-bit marking domains on egress: MPLS EXP and 802.1p PCP, classified and written.

The egress HTB classifies every packet with its filters (plan.py: the DSCP of IP packets); here, per interface:

- EXP (``trust: exp``): one u32 filter per EXP value on ``protocol mpls_uc`` matching the traffic class bits of
  the top label stack entry, bits 9-11 of the 32-bit entry at the network header (RFC 3032 section 2.1;
  RFC 5462 renames EXP to TC): ``match u32 0x00000a00 0x00000e00 at 0`` is EXP 5 (tc-u32(8) ``match u32 VAL MASK
  at OFFSET``, the offset counted from the network header, which is the label stack for mpls_uc).
- EXP rewrite (``rewrite: exp``): the same filters carry ``action mpls modify tc V pipe`` (tc-mpls(8), act_mpls,
  Linux 5.3), V the class's EXP at the value's drop precedence.  act_mpls drops a packet that is not MPLS
  (skb_mpls_update_lse), so the action is only ever on mpls_uc filters.  An interface that rewrites EXP without
  classifying on it has one mpls_uc filter, every labelled packet into the default class with its EXP.
- PCP (``trust: pcp``): one classic-BPF (cBPF) cls_bpf filter per PCP value (tc-bpf(8) ``bpf bytecode``;
  cls_bpf is built in where u32 is: domain.md 4.4), reading the frame's 802.1Q tag from the packet's metadata
  (the ancillary loads SKF_AD_VLAN_TAG_PRESENT and SKF_AD_VLAN_TAG of linux/filter.h): the kernel keeps the
  outer tag there for every tagged frame it receives (skb_vlan_untag) and every frame a VLAN device sends, so a
  bridge or trunk port sees the PCP of the frames it forwards, where u32 (packet bytes only) sees none.  The
  program returns -1 for its PCP value (the filter's flowid, tc-bpf(8) "classid") and 0 otherwise (no match).
  flower ``vlan_prio`` (tc-flower(8)) and the basic classifier's ``meta(vlan)`` ematch would read the same tag,
  but neither is in the lab's kernel, so the lab could not exercise them.
- PCP rewrite (``rewrite: pcp``): Linux writes a frame's PCP where it tags it, in the VLAN device, from the
  packet's priority (ip-link(8) ``egress-qos-map``: "a mapping of Linux internal packet priority to VLAN header
  prio field"), after the device's qdisc.  So each filter of the interface's HTB also sets that priority to the
  PCP the class writes (``action skbedit priority :V pipe``, tc-skbedit(8)), a last filter does it for whatever
  no other filter matched, and the VLAN device must map priority V to PCP V: the wrapper checks the map of
  ``ip -d link show`` before it applies anything and refuses (exit 4) where the interface is not such a VLAN
  device.  A tag that already exists when the frame reaches the qdisc (a bridged frame, or one a VLAN device
  above this interface tagged) can be rewritten by tc only with ``action vlan modify``, which sets the VLAN id
  too (tc-vlan(8): ``modify ... id VLANID``; act_vlan.c replaces the VID), so qosc does not write it; and the
  map carries no drop eligible indicator (vlan_dev_set_egress_priority keeps the PCP bits only), so a drop
  precedence carried in the DEI travels as its low value (QOS149).
- Drop precedence: tc has none (HTB queues do not drop by precedence), and an EXP or PCP value is classified
  into a class at the drop precedence the policy gives it only so its rewrite writes that precedence's value.
  The last digit of a filter's prio is that precedence (1..3), so the configuration says it and verify and
  import read it back; the tens say the domain, in the order filters are tried (LAYOUT): IP packets by their
  DSCP, labelled packets by their EXP, tagged frames by their PCP; where the interface trusts PCP and not DSCP,
  tagged frames by their PCP before their DSCP (PCP_FIRST).
"""

from __future__ import annotations

from dataclasses import dataclass

from qosc.dscp import drop_precedence
from qosc.model import Domain, Interface, Policy, Service
from qosc.targets.linux_tc.words import Words, kws, mask
from qosc.tree import Kind, Word, integer

SKF_AD_OFF = 2**32 - 0x1000
"""linux/filter.h SKF_AD_OFF (-0x1000) as the unsigned k of a cBPF load: where the ancillary data starts."""
SKF_AD_VLAN_TAG = 44
SKF_AD_VLAN_TAG_PRESENT = 48
LD_W_ABS, JEQ_K, RSH_K, RET_K = 0x20, 0x15, 0x74, 0x06
"""cBPF opcodes (linux/bpf_common.h): BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_ALU|BPF_RSH|BPF_K,
BPF_RET|BPF_K."""
RET_FLOWID = 2**32 - 1
"""A cls_bpf program's -1: the filter's own flowid (tc-bpf(8) classid/flowid)."""
PCP_SHIFT = 13
"""The PCP is the top three bits of the 16-bit tag control information (IEEE 802.1Q-2018 9.6)."""
EXP_SHIFT = 9
"""The traffic class bits of a label stack entry: label 20 bits, TC 3 bits, S 1 bit, TTL 8 bits (RFC 3032)."""


def pcp_program(value: int) -> tuple[tuple[int, int, int, int], ...]:
    """The cBPF classifier of one PCP value: no tag, or another PCP, is no match."""
    return (
        (LD_W_ABS, 0, 0, SKF_AD_OFF + SKF_AD_VLAN_TAG_PRESENT),  # A = tag present
        (JEQ_K, 4, 0, 0),                                          # no tag: return 0
        (LD_W_ABS, 0, 0, SKF_AD_OFF + SKF_AD_VLAN_TAG),           # A = tag control information
        (RSH_K, 0, 0, PCP_SHIFT),                                  # A = PCP
        (JEQ_K, 0, 1, value),
        (RET_K, 0, 0, RET_FLOWID),
        (RET_K, 0, 0, 0),
    )


def bytecode(program: tuple[tuple[int, int, int, int], ...]) -> Word:
    """tc-bpf(8) bytecode 's,c t f k,c t f k,...' (decimal), quoted for tc -batch (one word with spaces)."""
    text = ",".join([str(len(program)), *(" ".join(map(str, insn)) for insn in program)])
    return Word(Kind.TEXT, f"'{text}'", program, "cbpf")


@dataclass(frozen=True)
class Layout:
    """The tc prio of each kind of egress filter (module doc): a domain's filters at base + drop precedence."""

    dscp: tuple[int, int]
    exp: int
    pcp: int
    catch_all: int


LAYOUT = Layout((1, 2), 10, 20, 31)
PCP_FIRST = Layout((21, 22), 0, 10, 31)


def layout(iface: Interface) -> Layout:
    return PCP_FIRST if Domain.PCP in iface.trust and Domain.DSCP not in iface.trust else LAYOUT


@dataclass(frozen=True)
class EgressFilter:
    """One filter of the egress HTB: what it matches (`kind` u32 or bpf, its words), the class it sends to, and
    the actions that write the class's marks."""

    protocol: str
    prio: int
    match_words: Words
    minor: int
    service: str
    domain: str
    """'dscp', 'exp', 'pcp' (what it matches), or 'all' (the last filter, for the PCP rewrite)."""
    value: int | None = None
    kind: str = "u32"
    actions: tuple[Words, ...] = ()

    @property
    def match(self) -> str:
        return " ".join(w.text for w in self.match_words)

    @property
    def flowid(self) -> str:
        return f"1:{self.minor:x}"

    @property
    def action_kinds(self) -> tuple[str, ...]:
        return tuple(a[0].text for a in self.actions)


def mark(owner: Service, domain: Domain, precedence: int) -> int | None:
    """What a class writes in a 3-bit domain at a drop precedence: its owner's value (the default service's 0
    where it declares none), as the behaviour model's marks say (qosc.behaviour.intent)."""
    value = owner.mark_in(domain, precedence)
    return 0 if value is None and owner.default else value


def _skbedit(value: int) -> Words:
    return (*kws("skbedit priority"), Word(Kind.INTEGER, f":{value}", value, "skb-priority"), *kws("pipe"))


def _mpls(value: int) -> Words:
    return (*kws("mpls modify tc"), integer(value, "tc"), *kws("pipe"))


def actions(iface: Interface, owner: Service, precedence: int, labelled: bool) -> tuple[Words, ...]:
    """The rewrite actions of a filter sending traffic of `precedence` to `owner`'s class (`labelled`: an mpls_uc
    filter, the only kind that may carry act_mpls)."""
    out: list[Words] = []
    if labelled and Domain.EXP in iface.rewrite and (exp := mark(owner, Domain.EXP, precedence)) is not None:
        out.append(_mpls(exp))
    if Domain.PCP in iface.rewrite and (pcp := mark(owner, Domain.PCP, precedence)) is not None:
        out.append(_skbedit(pcp))
    return tuple(out)


def dscp_actions(iface: Interface, owner: Service, code: int) -> tuple[Words, ...]:
    """The actions of the DSCP filter of one code point (its AF drop precedence picks the value)."""
    return actions(iface, owner, drop_precedence(code), labelled=False)


def table(policy: Policy, iface: Interface, domain: Domain) -> list[tuple[Service, int] | None]:
    """(queue owner, drop precedence) per value 0..7: the services scheduled here at the first precedence they
    list a value at, every other value the default service's class (None where the interface does not schedule
    it: HTB's default class takes those)."""
    scheduled = policy.services_on(iface)
    default = policy.default_service
    fallback = (policy.queue_owner(default), 1) if default is not None and default in scheduled else None
    out: list[tuple[Service, int] | None] = [fallback] * 8
    for s in scheduled:
        for value, precedence in s.marking(domain).values:
            if out[value] == fallback:
                out[value] = (policy.queue_owner(s), precedence)
    return out


EXP_MASK = 0x7 << EXP_SHIFT
MATCH_ALL: Words = (*kws("match u32"), integer(0, "value"), integer(0, "mask"))


def _exp_match(value: int) -> Words:
    return (*kws("match u32"), mask(value << EXP_SHIFT, 8), mask(EXP_MASK, 8), *kws("at 0"))


def marking_filters(policy: Policy, iface: Interface, minors: dict[str, int], default: str) -> list[EgressFilter]:
    """The EXP, PCP and last filters of an interface (module doc); `minors`: queue owner -> class minor,
    `default`: the owner of HTB's default class."""
    at = layout(iface)
    out: list[EgressFilter] = []
    if Domain.EXP in iface.trust:
        for value, slot in enumerate(table(policy, iface, Domain.EXP)):
            if slot is not None and slot[0].name in minors:
                owner, prec = slot
                out.append(EgressFilter("mpls_uc", at.exp + prec, _exp_match(value), minors[owner.name], owner.name,
                                        "exp", value, actions=actions(iface, owner, prec, labelled=True)))
    elif Domain.EXP in iface.rewrite and default in minors:
        owner = policy.service_map[default]
        out.append(EgressFilter("mpls_uc", at.exp + 1, MATCH_ALL, minors[default], default, "exp",
                                actions=actions(iface, owner, 1, labelled=True)))
    if Domain.PCP in iface.trust:
        for value, slot in enumerate(table(policy, iface, Domain.PCP)):
            if slot is not None and slot[0].name in minors:
                owner, prec = slot
                out.append(EgressFilter("all", at.pcp + prec, (*kws("bytecode"), bytecode(pcp_program(value))),
                                        minors[owner.name], owner.name, "pcp", value, kind="bpf"))
    if Domain.PCP in iface.rewrite and default in minors:
        found = actions(iface, policy.service_map[default], 1, labelled=False)
        if found:
            out.append(EgressFilter("all", at.catch_all, MATCH_ALL, minors[default], default, "all", actions=found))
    return sorted(out, key=lambda f: f.prio)


def written_pcp(filters: list[EgressFilter]) -> tuple[int, ...]:
    """The PCP values the filters set as the packet priority (what the VLAN device's egress-qos-map must map)."""
    return tuple(sorted({w.value for f in filters for a in f.actions for w in a if w.tag == "skb-priority"}))


def summary(filters: list[EgressFilter], default: str, vlan_map: tuple[int, ...]) -> list[str]:
    """What the wrapper's header says about the marking filters, one line per domain."""
    out = []
    exp = sorted({f.prio for f in filters if f.domain == "exp"})
    if exp:
        out.append(f"prio {_span(exp)} mpls_uc: u32 on the top label's EXP (0x00000e00 at 0), one filter per value"
                   + ("" if len(exp) > 1 or any(f.value is not None for f in filters if f.domain == "exp")
                      else " (every labelled packet: EXP not trusted)")
                   + _writes(filters, "exp"))
    pcp = sorted({f.prio for f in filters if f.domain == "pcp"})
    if pcp:
        out.append(f"prio {_span(pcp)} all: cls_bpf (classic BPF) on the PCP of the frame's 802.1Q tag, one filter "
                   "per value (a tag written before this qdisc: a bridged frame, or one a VLAN device tagged)")
    if exp or pcp:
        out.append("the last digit of an EXP or PCP filter's prio is the drop precedence of its value")
    last = [f for f in filters if f.domain == "all"]
    if last:
        out.append(f"prio {last[0].prio} all: everything else to {last[0].flowid} ({default}) with its 802.1p")
    if vlan_map:
        pairs = " ".join(f"{v}:{v}" for v in vlan_map if v)
        out.append("802.1p: every filter sets the packet priority to the PCP its class writes (skbedit priority) "
                   "and the VLAN device writes the PCP from it after this qdisc, so the interface must be a VLAN "
                   f"device whose egress-qos-map holds {pairs or 'no entry for priority 0'} and no entry for "
                   "priority 0 (checked before anything is applied)")
    return out


def _span(prios: list[int]) -> str:
    return str(prios[0]) if len(prios) == 1 else f"{prios[0]}-{prios[-1]}"


def _writes(filters: list[EgressFilter], domain: str) -> str:
    return "; action mpls modify tc writes the class's EXP" if any(
        "mpls" in f.action_kinds for f in filters if f.domain == domain) else ""

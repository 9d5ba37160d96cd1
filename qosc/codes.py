"""The registry of diagnostic codes: code, stage, severity, summary.  The README table is generated from it.

Core codes live here; a target declares its own in its package (`Target.codes`)
and the registry of targets adds them (qosc.targets.registry.all_codes), so a
new target touches nothing here.  A test keeps every code used in the source
registered, every registered code used, and the README table in sync.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    stage: str
    severity: str  # "error", "warning", "info", or "error|warning" / "warning|info" where the finding decides
    summary: str
    owner: str = "core"
    """'core', or the target that reports it."""


def _c(code: str, stage: str, severity: str, summary: str, owner: str = "core") -> Code:
    return Code(code, stage, severity, summary, owner)


_LOAD, _SCHEMA, _REFS, _DSCP, _CAP = "load", "schema", "references", "dscp", "capacity"
_LBE, _POL, _DROP, _ROLES, _PLAT = "lbe", "policers", "drop profiles", "roles", "platform"
_COMPILE, _HOSTS, _SLS, _READ = "compile", "hosts", "sls", "read back"
_MARK = "marking"

CORE: tuple[Code, ...] = (
    _c("QOS001", _LOAD, "error", "YAML syntax error, a non-string mapping key, or an undefined alias"),
    _c("QOS002", _LOAD, "error", "YAML tag (refused: a policy is plain data)"),
    _c("QOS003", _LOAD, "error", "alias bomb or recursive alias"),
    _c("QOS004", _LOAD, "error", "nesting deeper than the loader's limit"),
    _c("QOS005", _LOAD, "error", "duplicate key in a mapping"),
    _c("QOS006", _LOAD, "error", "file or included file cannot be read"),
    _c("QOS007", _LOAD, "error", "include cycle, or one name defined by two files"),
    _c("QOS008", _LOAD, "error", "policy with its includes larger than 32 MiB, not UTF-8, or (diff --base) a revision "
       "that cannot be read"),
    _c("QOS009", _LOAD, "error", "number out of range (64-bit integers, finite floats)"),
    _c("QOS010", _SCHEMA, "error", "unknown key (with a did-you-mean hint)"),
    _c("QOS011", _SCHEMA, "error", "wrong type"),
    _c("QOS012", _SCHEMA, "error", "missing required key"),
    _c("QOS013", _SCHEMA, "error", "bad value (name, enumeration, pattern, range)"),
    _c("QOS014", _SCHEMA, "error", "bad unit or quantity (rate, size, time, percentage)"),
    _c("QOS015", _SCHEMA, "error", "bad prefix, port, protocol or MAC address"),
    _c("QOS016", _LOAD, "error", "policy too large: more than 2,000,000 nodes with its includes, or a list of more "
       "than 65,536 items"),
    _c("QOS020", _REFS, "error", "undefined service"),
    _c("QOS021", _REFS, "error", "undefined drop profile"),
    _c("QOS022", _REFS, "error", "undefined policer"),
    _c("QOS023", _REFS, "error", "undefined profile"),
    _c("QOS024", _REFS, "error", "undefined classifier"),
    _c("QOS025", _REFS, "error", "unknown platform"),
    _c("QOS026", _REFS, "error", "names that differ only by case (they collide as file and vendor object names)"),
    _c("QOS030", _DSCP, "error", "invalid DSCP"),
    _c("QOS031", _DSCP, "error", "code point claimed by two services"),
    _c("QOS032", _DSCP, "error", "no default service"),
    _c("QOS033", _DSCP, "error", "two default services"),
    _c("QOS034", _DSCP, "error", "service without a code point (no DSCP, EXP or PCP)"),
    _c("QOS035", _DSCP, "error", "rule marking a DSCP that is not its service's"),
    _c("QOS036", _DSCP, "error", "rule whose prefixes and protocols leave no IP family (icmp6 with IPv4 prefixes)"),
    _c("QOS037", _DSCP, "error", "rule that says mark: false and set-dscp"),
    _c("QOS038", _DSCP, "warning", "rule that classifies without marking (mark: false) into a service with DSCP, "
       "where interfaces trust DSCP: they classify the packets by the DSCP they keep"),
    _c("QOS210", _DSCP, "error", "rule that matches the Ethernet header (pcp, MAC addresses) and the IP header, "
       "or marks a DSCP"),
    _c("QOS211", _DSCP, "error", "rule that matches IP or marks DSCP on an interface that carries Ethernet frames "
       "only (encapsulation vlan)"),
    _c("QOS212", _DSCP, "error", "rule on the Ethernet header in the classifier of an interface that carries IP"),
    _c("QOS213", _DSCP, "error", "classifier with unmatched: drop on an interface that trusts a marking"),
    _c("QOS214", _DSCP, "warning", "classifier with unmatched: drop: what its rules do not match is discarded"),
    _c("QOS040", _CAP, "error", "shares plus strict caps over 100% of a link"),
    _c("QOS041", _CAP, "error", "absolute rate on an interface without speed"),
    _c("QOS042", _CAP, "error", "strict priority without cap or policer"),
    _c("QOS043", _CAP, "error", "ceiling below share"),
    _c("QOS044", _CAP, "error", "rate cap below share"),
    _c("QOS045", _CAP, "error", "rate cap or ceiling of 0: a queue that never drains"),
    _c("QOS046", _CAP, "warning", "strict priority left uncapped on purpose (rate-cap: none): it can starve every "
       "other service"),
    _c("QOS047", _CAP, "error", "rate-cap: none on a queue that is not strict"),
    _c("QOS048", _COMPILE, "error", "strict queue left uncapped (rate-cap: none) on a target that cannot serve it "
       "so (Linux HTB, IOS XR): refused"),
    _c("QOS050", _LBE, "error", "LBE priority not strictly below best effort"),
    _c("QOS051", _LBE, "error", "LBE share above best effort's"),
    _c("QOS052", _LBE, "error", "LBE in a shared queue"),
    _c("QOS053", _LBE, "warning", "LBE share above 5%"),
    _c("QOS054", _LBE, "warning", "scavenger code point (cs1, le) not declared LBE"),
    _c("QOS060", _POL, "error", "policer burst below one MTU"),
    _c("QOS061", _POL, "error", "PIR below CIR"),
    _c("QOS062", _POL, "error", "PBS below CBS"),
    _c("QOS063", _POL, "warning", "TCP burst below CIR x RTT"),
    _c("QOS064", _POL, "error", "violate action on a two-colour policer"),
    _c("QOS065", _POL, "warning", "remark to a DSCP no service claims"),
    _c("QOS066", _POL, "warning", "markdown that lowers an AF drop precedence (RFC 2597 markdown raises it)"),
    _c("QOS070", _DROP, "error", "drop profile value outside 0..100"),
    _c("QOS071", _DROP, "error", "drop profile not monotonic"),
    _c("QOS072", _DROP, "warning", "drop profile unused"),
    _c("QOS073", _DROP, "warning", "aqm: red without a drop profile (tail drop)"),
    _c("QOS074", _DROP, "warning", "drop profile beside aqm: none or codel, which no target runs"),
    _c("QOS080", _ROLES, "error", "transparent interface that would remark"),
    _c("QOS081", _ROLES, "warning", "edge interface without classifier that trusts nothing"),
    _c("QOS082", _ROLES, "error", "classifier on a core interface"),
    _c("QOS083", _MARK, "error", "one EXP or PCP value claimed by services that do not share a queue"),
    _c("QOS084", _MARK, "error", "more queues classified on EXP or PCP than its eight values can carry"),
    _c("QOS085", _MARK, "error", "LBE on best effort's EXP or PCP, or without one where it is carried"),
    _c("QOS086", _MARK, "warning", "AF drop precedences that collapse onto one EXP or PCP value"),
    _c("QOS087", _MARK, "error", "a core or trunk rewrite that bleaches a service's EXP or PCP to the default's"),
    _c("QOS088", _MARK, "warning", "an edge imposes an EXP that an MPLS core interface does not classify"),
    _c("QOS089", _MARK, "warning", "an edge leaves EXP to the box's default, which puts two services on one value"),
    _c("QOS090", _PLAT, "error", "a policy field is set that the target of a device using it does not support"),
    _c("QOS091", _PLAT, "error", "more queues than the platform (or port type) has"),
    _c("QOS092", _PLAT, "error", "priority level the platform lacks"),
    _c("QOS093", _PLAT, "error", "more strict-priority queues than the platform allows"),
    _c("QOS094", _PLAT, "error", "zero share on a platform that cannot schedule it"),
    _c("QOS095", _PLAT, "error", "policer rate or burst outside the platform's range"),
    _c("QOS096", _MARK, "error", "a marking domain (trust, rewrite, impose) on an interface that does not carry it"),
    _c("QOS097", _MARK, "warning", "a service without an EXP or PCP value on an interface that classifies on it"),
    _c("QOS100", _COMPILE, "error", "a value that would inject a config line"),
    _c("QOS101", _COMPILE, "error", "unknown target"),
    _c("QOS102", _COMPILE, "error", "a selected device is not compiled (in no policy, or no selected target serves "
       "it)"),
    _c("QOS103", _COMPILE, "error", "two policies produce the same device or file"),
    _c("QOS104", _COMPILE, "info", "what an explicit verification (--verify) found on this machine; never written "
       "into the files"),
    _c("QOS105", _COMPILE, "error", "planted or foreign temporary state refused"),
    _c("QOS106", _COMPILE, "warning", "cache directory or file not trusted; cache ignored"),
    _c("QOS107", _COMPILE, "error", "two output files that differ only by case (they collide on a "
       "case-insensitive filesystem)"),
    _c("QOS145", _HOSTS, "error", "a path's buffer (2 x rate x RTT) above the largest socket buffer Linux accepts"),
    _c("QOS146", _COMPILE, "error", "an explicit verification (--verify) cannot run on this machine, and must (CI)"),
    _c("QOS150", _HOSTS, "warning", "receive buffer below send buffer"),
    _c("QOS151", _HOSTS, "error", "buffer override too small for the path's window"),
    _c("QOS152", _HOSTS, "warning", "buffer override below the path's bandwidth-delay product"),
    _c("QOS153", _HOSTS, "error", "sysctl value the kernel refuses"),
    _c("QOS154", _HOSTS, "error", "buffer triple not ordered min <= default <= max"),
    _c("QOS155", _HOSTS, "warning", "service rate no declared host can reach"),
    _c("QOS156", _HOSTS, "error", "path rate above the host's interface speed"),
    _c("QOS157", _HOSTS, "warning", "current buffers cap TCP on a path"),
    _c("QOS158", _HOSTS, "error", "path names an unknown service"),
    _c("QOS159", _HOSTS, "warning", "host with neither paths nor overrides"),
    _c("QOS160", _SLS, "error", "sls.path hop names no device or interface"),
    _c("QOS161", _SLS, "error", "declared rate above the minimum rate along the path"),
    _c("QOS162", _SLS, "error", "declared delay below the derived per-hop queueing bound"),
    _c("QOS163", _SLS, "warning", "a path hop does not schedule the service"),
    _c("QOS164", _SLS, "error", "declared rate above the edge policer's CIR"),
    _c("QOS165", _SLS, "warning", "LBE service with declared guarantees"),
    _c("QOS166", _SLS, "error", "declared IPDV below the derived bound"),
    _c("QOS170", _READ, "error", "qosc cannot read this platform's configurations back (yet)"),
    _c("QOS171", _READ, "error", "equiv: an interface of one configuration has no partner in the other"),
    _c("QOS172", _READ, "warning", "import: a statement the policy language cannot represent (kept out, reported)"),
    _c("QOS173", _READ, "warning", "import: devices or interfaces disagree; the value taken is named"),
    _c("QOS174", _READ, "warning", "read back: a reference to an object the configuration does not define"),
    _c("QOS175", _READ, "warning", "read back: classifiers that overlap (one code point or match in two)"),
    _c("QOS176", _READ, "error", "verify: the device does not do what the policy says (drift)"),
    _c("QOS177", _READ, "error", "equiv: the two configurations behave differently"),
    _c("QOS178", _READ, "warning", "verify: a qosc-owned object the policy no longer produces (stale)"),
    _c("QOS179", _READ, "error", "read back: configuration syntax error"),
    _c("QOS182", _READ, "info", "verify: the policy's own compile cannot be read back on this machine (no scratch "
       "network namespace for a tc batch): compared with the policy alone, stale objects not detected"),
    _c("QOS187", _READ, "error", "import: two configurations under one device name (or names differing only by "
       "case); nothing is written"),
    _c("QOS200", _READ, "error", "read back: configuration larger than 32 MiB or nested deeper than 64 levels (the "
       "readers' limits)"),
    _c("QOS201", _READ, "info", "import: nothing to lift: the configuration applies no QoS qosc reads (no policy "
       "written, exit status 3)"),
    _c("QOS202", _READ, "info", "import: the reconciliation: QoS objects seen = lifted + named as not lifted (QOS172)"),
    _c("QOS203", _READ, "error", "import: no valid policy can be lifted from what the configuration applies (nothing "
       "written)"),
    _c("QOS204", _READ, "info", "read back: the configuration does not say something qosc needs (a tc dump's "
       "interface): what was taken instead is said"),
    _c("QOS205", _READ, "info", "verify: an object in what qosc owns on a device qosc has not configured (a takeover): "
       "someone else's, not stale"),
    _c("QOS206", _READ, "info", "read back: queue guarantees that overbook the link beside strict-priority caps, read "
       "as what the device can guarantee (the share of what the strict queues leave)"),
    _c("QOS207", _READ, "warning", "import: a share the policy's checks refuse as it is (a fraction a target writes "
       "in whole percent) lifted as the whole percentage below it, the difference said at the configuration"),
    _c("QOS208", _READ, "info", "import: an interface that classifies or rewrites but queues by the device's defaults "
       "(no scheduler map or output policy) lifted with egress-queueing: device-default"),
    _c("QOS209", _COMPILE, "error", "egress-queueing: device-default on an interface whose egress marking or shaping "
       "the target writes in the queueing it leaves out"),
    _c("QOS199", _COMPILE, "error", "internal error: generated configuration refused by its target's grammar (a qosc "
       "bug, reported at the policy line the statement came from)"),
)

def readme_table(codes: tuple[Code, ...]) -> str:
    """The Markdown table of codes (the README's copy is generated from this)."""
    rows = ["| code | stage | severity | summary |", "|---|---|---|---|"]
    for c in sorted(codes, key=lambda c: c.code):
        stage = c.stage if c.owner in ("core", c.stage) else f"{c.stage} ({c.owner})"
        cells = (c.code, stage, c.severity, c.summary)
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")  # 'error|warning' is one cell
    return "\n".join(rows)

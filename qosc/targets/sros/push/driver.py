"""The SR OS push driver: the RFC 6241 NETCONF path (qosc.push.netconf) with the nokia-conf XML qosc writes.

SR OS's NETCONF server has the candidate datastore and confirmed commit
(ncclient's `sros` device handler speaks to it as to any RFC 6241 server):
lock candidate; edit-config of the `<device>.xml` output (`<configure>` of
nokia-conf; every QoS policy qosc writes operation="replace", so an entry
the policy dropped does not linger; the bindings merged); the difference of
candidate and running shown as MD-CLI flat lines; validate; commit confirmed
with the timeout; get-config of running to verify; commit to confirm; discard
and unlock on any error.  The XML is checked against the YANG-derived grammar
before it is sent.  A session lost before the confirm leaves the server to
revert the commit (RFC 6241 8.4), and the lock dies with the session.
"""

from __future__ import annotations

import difflib
from typing import Any

from lxml import etree

from qosc.push.base import PushError
from qosc.push.netconf import NC, NetconfDriver
from qosc.targets.sros.grammar import GRAMMAR
from qosc.targets.sros.push.yang import NAMESPACE
from qosc.tree import Document

REPLACED = ("sap-ingress", "sap-egress", "network", "network-queue", "slope-policy")
"""The qos lists whose entries qosc writes whole (edit-config replaces each entry it sends)."""


class ConversionError(ValueError):
    """The XML to send is not nokia-conf as the grammar reads it."""


def _parser() -> etree.XMLParser:
    return etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True, load_dtd=False)


class SrosDialect:
    namespace = NAMESPACE
    yang = "yang/qosc-sros-conf.yang"
    errors: tuple[type[Exception], ...] = (ConversionError,)
    owned_hierarchies: tuple[str, ...] = ("configure",)

    def for_load(self, text: str) -> str:
        return text

    def to_xml(self, text: str) -> Any:
        """The `<configure>` element to send, checked by the grammar first; qos entries marked replace."""
        from qosc.targets.sros.read.xml import parse_xml
        try:
            statements = parse_xml(text, "push.xml")
        except Exception as exc:  # noqa: BLE001 - any unreadable payload is a conversion error
            raise ConversionError(str(exc)) from None
        found = GRAMMAR.check(Document("push", "sros", statements))
        if found:
            raise ConversionError(str(found[0]))
        root = etree.fromstring(text.encode("utf-8"), _parser())
        conf = root if etree.QName(root).localname == "configure" else root.find(f"{{{NAMESPACE}}}configure")
        if conf is None:
            raise ConversionError("no <configure> element")
        qos = conf.find(f"{{{NAMESPACE}}}qos")
        for entry in qos if qos is not None else ():
            if isinstance(entry.tag, str) and etree.QName(entry).localname in REPLACED:
                entry.set(f"{{{NC}}}operation", "replace")
        return conf

    def to_text(self, config: Any) -> str:
        """A `<configure>` element as MD-CLI flat lines (for the diff)."""
        if config is None:
            return ""
        from qosc.targets.sros.read.xml import parse_xml
        from qosc.targets.sros.serialize import flat
        text = etree.tostring(config, encoding="unicode")
        return flat(Document("diff", "sros", parse_xml(text, "diff.xml"))).text

    def owned(self, text: str) -> str:
        return text


class SrosDriver(NetconfDriver):
    """SR OS devices over NETCONF (RFC 6241: candidate, validate, confirmed commit)."""

    dialect = SrosDialect()

    def load(self) -> None:
        xml = self.job.file(".xml")
        if xml is None:
            raise PushError("load", f"no .xml file generated for {self.job.device}")
        try:
            self.payload = self.dialect.to_xml(xml.text)
        except self.dialect.errors as exc:
            raise PushError("load", f"generated configuration cannot be loaded: {exc}") from None
        config = etree.Element(f"{{{NC}}}config", nsmap={"nc": NC})
        config.append(self.payload)
        kwargs = {"error_option": "rollback-on-error"} if self._cap("rollback-on-error") else {}
        self._call("load", self.m.edit_config, target="candidate", config=config, default_operation="merge",
                   **kwargs)

    def _get(self, source: str, stage: str) -> str:
        reply = self._call(stage, self.m.get_config, source=source,
                           filter=("subtree", f'<configure xmlns="{NAMESPACE}"/>'))
        root = etree.fromstring(etree.tostring(reply.data_ele), _parser())
        conf = root.find(f"{{{NAMESPACE}}}configure")
        if conf is None or len(conf) == 0:
            self.snapshot[source] = None
            return ""
        clean = etree.fromstring(etree.tostring(conf))
        etree.cleanup_namespaces(clean, top_nsmap={None: NAMESPACE})
        self.snapshot[source] = clean
        return etree.tostring(clean, pretty_print=True, encoding="unicode")

    def running_config(self) -> str:
        self._connect()
        reply = self._call("read", self.m.get_config, source="running",
                           filter=("subtree", f'<configure xmlns="{NAMESPACE}"/>')).xml
        root = etree.fromstring(reply.encode(), _parser())
        return etree.tostring(root, pretty_print=True, encoding="unicode")

    def compare(self) -> str:
        running = self._get("running", "compare")
        self.candidate = self._get("candidate", "compare")
        if running == self.candidate:
            return ""
        old = self.dialect.to_text(self.snapshot["running"])
        new = self.dialect.to_text(self.snapshot["candidate"])
        return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                            f"{self.job.device} running", f"{self.job.device} candidate"))

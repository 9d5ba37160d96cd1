"""The JUNOS push driver: the NETCONF driver (qosc.push.netconf) with the junos dialect's text and XML forms."""

from __future__ import annotations

from typing import Any

from qosc.push.netconf import NetconfDriver
from qosc.targets.junos.push import text, xml

OWNED: tuple[str, ...] = ("class-of-service", "firewall", "interfaces")


class JunosDialect:
    namespace = xml.NAMESPACE
    yang = "yang/qosc-junos-qos.yang"
    errors: tuple[type[Exception], ...] = (text.JunosSyntaxError, xml.ConversionError)
    owned_hierarchies = OWNED

    def for_load(self, conf: str) -> str:
        return text.for_load(conf)

    def to_xml(self, conf: str) -> Any:
        return xml.to_xml(conf)

    def to_text(self, config: Any) -> str:
        return xml.to_text(config)

    def owned(self, conf: str) -> str:
        """The hierarchies qosc owns of a configuration text, in JUNOS's layout."""
        return text.serialise([s for s in text.parse(conf) if s.keyword in OWNED])


class JunosDriver(NetconfDriver):
    """JUNOS devices over NETCONF (the JUNOS RPC path or the RFC 6241 path)."""

    dialect = JunosDialect()

"""Render SLS documents: Markdown for pull requests, one self-contained HTML file per service.

Every value passes qosc.render.safe (no control or line-break characters),
then the format's own escaping: HTML-escaped by Jinja2 autoescape in HTML;
in Markdown, HTML-significant characters become entities and Markdown
punctuation is backslash-escaped, so a description can neither inject markup
nor break a table.  The HTML loads nothing from anywhere: inline CSS, inline
SVG, and a Content-Security-Policy that forbids every fetch.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from qosc.model import Policy, Service
from qosc.render import safe, templates_dir
from qosc.sls.document import Document, build_document
from qosc.targets.base import Output

FORMATS = {"md": "sls.md.j2", "html": "sls.html.j2"}
SUFFIX = {"md": "md", "html": "html"}

_MD_SPECIAL = "\\`*_[]|#~"


def md_escape(value: Any) -> str:
    """A value safe inside Markdown text and table cells (GitHub renders inline HTML, so entities too)."""
    text = safe(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


@lru_cache(maxsize=2)
def environment(fmt: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir() / "sls")),
        undefined=jinja2.StrictUndefined,
        finalize=safe if fmt == "html" else md_escape,
        autoescape=fmt == "html",
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


def render_document(doc: Document, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown SLS format {fmt!r}; one of {', '.join(FORMATS)}")
    return environment(fmt).get_template(FORMATS[fmt]).render(doc=doc)


def render_service(policy: Policy, service: Service, fmt: str) -> str:
    return render_document(build_document(policy, service), fmt)


def outputs(policy: Policy, services: list[Service], fmt: str) -> list[Output]:
    """One file per service: <service>.md or <service>.html (raises qosc.render.UnsafeValue on unsafe text)."""
    return [Output(f"{s.name}.{SUFFIX[fmt]}", render_service(policy, s, fmt)) for s in services]

"""Jinja2 rendering with one rule: no value may inject a line of config.

Every `{{ value }}` passes `finalize`, which refuses newlines, control
characters and Unicode line separators, so a description or name can never
start a new statement whatever the template does.  Templates hold no logic
beyond loops and formatting.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from qosc.errors import UnsafeValue

__all__ = ["UnsafeValue", "quoted", "render", "render_package", "safe"]


def safe(value: Any) -> str:
    """The text of a rendered value; raises UnsafeValue on any line-breaking or control character."""
    if type(value) is int:  # most rendered values: nothing to check
        return str(value)
    if value is None:
        raise UnsafeValue("None reached a template (a lowering bug)")
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # no Cc, Cf, Zl, Zp (nor any other separator but space): the common, fast case
        return text
    for ch in text:
        if ch in "\r\n\x0b\x0c\x85\u2028\u2029" or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            raise UnsafeValue(f"refusing to render {text[:40]!r}: it contains a control or line-break character")
    return text


def quoted(value: Any) -> str:
    """A double-quoted string for descriptions: safe, with quotes and backslashes neutralised."""
    return '"' + safe(value).replace("\\", "/").replace('"', "'") + '"'


def templates_dir() -> Path:
    """templates/ of the source tree, or the copy installed as qosc_templates."""
    source = Path(__file__).resolve().parent.parent / "templates"
    if source.is_dir():
        return source
    return Path(str(resources.files("qosc_templates")))


@lru_cache(maxsize=16)
def environment(target: str) -> jinja2.Environment:
    """The environment of templates/<target> (prose shared by targets: the SLS documents)."""
    return _environment(str(templates_dir() / target))


@lru_cache(maxsize=16)
def package_environment(package: str) -> jinja2.Environment:
    """The environment of a target package's own templates/ folder (e.g. linux-tc's shell wrappers)."""
    return _environment(str(resources.files(package).joinpath("templates")))


def _environment(folder: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        finalize=safe,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates do not change during a run: no stat of the file on every render
    )
    env.filters["quoted"] = quoted
    return env


@lru_cache(maxsize=64)
def _template(target: str, template: str) -> jinja2.Template:
    return environment(target).get_template(template)


def render(target: str, template: str, **context: Any) -> str:
    return _template(target, template).render(**context)


@lru_cache(maxsize=64)
def _package_template(package: str, template: str) -> jinja2.Template:
    return package_environment(package).get_template(template)


def render_package(package: str, template: str, **context: Any) -> str:
    """Render templates/<template> of a target package (qosc.targets.<name>)."""
    return _package_template(package, template).render(**context)

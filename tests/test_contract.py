"""The floor plan, measured: one pipeline, one package per target, a registry of codes, no cycles, small modules.

These are the structural promises of issue 13 that anyone can run:
- every diagnostic code used in the source is registered (qosc.codes or a
  target's own `codes`), every registered code is used, and the README table
  is generated from the registry;
- no import cycle among qosc's modules (imports in functions and under TYPE_CHECKING count);
- no module over MAX_LINES lines;
- each target is one package under qosc/targets/ that honours the contract
  (typed platform data that loads, a grammar for every dialect it lowers to,
  fields that exist in the schema, codes of its own).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from qosc import fields
from qosc.codes import CORE
from qosc.schema.reference import SECTIONS
from qosc.targets.base import Target
from qosc.targets.registry import all_codes, targets

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "qosc"
MAX_LINES = 400
CODE = re.compile(r"\bQOS\d{3}\b")


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "tests" not in p.relative_to(PACKAGE).parts)


def test_every_code_used_is_registered_and_every_registered_code_is_used() -> None:
    used: dict[str, str] = {}
    for path in sources():
        for code in CODE.findall(path.read_text(encoding="utf-8")):
            used.setdefault(code, str(path.relative_to(ROOT)))
    registered = {c.code: c for c in all_codes()}
    unregistered = {c: where for c, where in used.items() if c not in registered}
    assert not unregistered, f"register these codes (qosc/codes.py or the target's codes): {unregistered}"
    text = "".join(p.read_text(encoding="utf-8") for p in sources() if p.name != "codes.py")
    unused = [c for c in registered if c not in text]
    assert not unused, f"registered but never reported: {unused}"


def test_codes_are_unique_and_well_formed() -> None:
    codes = [c.code for c in all_codes()]
    assert len(codes) == len(set(codes))
    for c in all_codes():
        assert CODE.fullmatch(c.code) and c.summary and c.severity in ("error", "warning", "info", "error|warning",
                                                                      "warning|info")
    assert all(c.owner == "core" for c in CORE)


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_readme_sections_are_generated(section: str) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- BEGIN {section} -->\n(.*)<!-- END {section} -->", text, re.DOTALL)
    assert found, f"README lacks the generated section {section}"
    assert found.group(1) == SECTIONS[section](), "run: python scripts/update-readme-reference"


def _imports(path: Path) -> set[str]:
    """qosc modules a module imports anywhere: at its top level, inside functions and under TYPE_CHECKING (an
    import deferred into a function, or kept for the type checker, is still a dependency: issue 25)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Import):
            found.update(a.name for a in sub.names if a.name.startswith("qosc"))
        elif isinstance(sub, ast.ImportFrom):
            base = sub.module or ""
            if sub.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - sub.level + 1] + ([base] if base else []))
            if base.startswith("qosc"):
                found.add(base)
                found.update(f"{base}.{a.name}" for a in sub.names)
    return found


def test_the_import_scan_sees_deferred_and_type_checking_imports(tmp_path: Path) -> None:
    source = ROOT / "qosc" / "_probe_for_the_scan.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from qosc.model import Device\n"
                      "def f():\n    from qosc import build\n    import qosc.load\n", encoding="utf-8")
    try:
        assert {"qosc.model", "qosc.build", "qosc.load"} <= _imports(source)
    finally:
        source.unlink()


def test_no_import_cycles() -> None:
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in sources()}
    graph = {m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()}
    # a module importing qosc.x.y also runs qosc.x (its package __init__), which is an edge of its own
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"


def test_no_module_is_over_the_size_limit() -> None:
    big = {str(p.relative_to(ROOT)): n for p in sources()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"split these by concept (at most {MAX_LINES} lines): {big}"


@pytest.mark.parametrize("name", sorted(targets()))
def test_target_honours_the_contract(name: str) -> None:
    target = targets()[name]
    assert isinstance(target, Target)
    assert target.package == f"qosc.targets.{target.package.rsplit('.', 1)[-1]}"
    folder = ROOT / Path(*target.package.split("."))
    assert folder.is_dir() and (folder / "platforms").is_dir() and (folder / "tests").is_dir()
    assert target.platforms, "a target serves at least one platform"
    for platform in target.platform_data.values():
        assert isinstance(platform, target.platform_class) and platform.target == name and platform.source
    assert target.fields <= set(fields.target_fields()), "fields the schema does not have"
    assert target.formats and target.grammars, "a target writes statement trees through serializers and a grammar"
    assert {g.dialect for g in target.grammars} == {f.dialect for f in target.formats}, \
        "a grammar for every dialect the target writes, and a serializer for every grammar"
    assert all(c.owner == name for c in target.codes)


def test_each_target_lives_in_one_folder() -> None:
    """No target code outside its package: no per-vendor templates, platform files or push drivers elsewhere."""
    for target in targets().values():
        short = target.package.rsplit(".", 1)[-1]
        assert not (ROOT / "templates" / target.name).exists(), f"templates/{target.name} belongs in the package"
        assert not (PACKAGE / "targets" / f"{short}.py").exists()
        for platform in target.platforms:
            assert not (PACKAGE / "platforms" / f"{platform}.json").exists()
        for path in sources():
            rel = path.relative_to(PACKAGE)
            if rel.parts[:2] == ("targets", short):
                continue
            text = path.read_text(encoding="utf-8")
            # a word boundary: qosc.targets.iosxr is not the ios package
            assert not re.search(rf"qosc\.targets\.{short}\b", text), f"{rel} reaches into the {short} package"


def test_every_package_is_installed() -> None:
    """A non-editable install (the pre-commit hook's) carries every package and every target's platform files."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")
             if "tests" not in p.relative_to(PACKAGE).parts}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    for target in targets().values():
        assert "platforms/*.json" in config["package-data"].get(target.package, []), target.package


def test_class_sizing_is_part_of_the_contract() -> None:
    """The SLS bounds ask each target through Target.class_sizing (default None: the generic formula), never by
    looking the method up; the sizing targets answer with numbers or with the reason they cannot (issue 17)."""
    from qosc import api, sizing

    assert Target.class_sizing.__doc__ and "delay_bound" in Target.class_sizing.__doc__
    bounds = (ROOT / "qosc" / "sls" / "bounds.py").read_text(encoding="utf-8")
    assert "getattr(" not in bounds and ".class_sizing(" in bounds
    policy = api.validate(ROOT / "policies" / "assured-rate.yaml").policy
    assert policy is not None
    premium = policy.service_map["ip-premium"]
    answers = {}
    for d in policy.devices:
        for target in (t for t in targets().values() if d.platform in t.platforms):
            answers[d.name] = target.class_sizing(policy, d, d.interfaces[0], premium)
    assert {n for n, a in answers.items() if isinstance(a, sizing.ClassSizing)} == {"edge-mx", "gsr-2", "asr-1",
                                                                                    "linux-gw"}
    assert isinstance(answers["core-m"], sizing.Unsized)  # M-series: no strict-high, the reason is said
    assert answers["cat6500-2"] is None  # not sized: the generic formula, as before
    assert type(targets()["catalyst6500"]).class_sizing is Target.class_sizing

"""Stages up to the model: load, schema, build, semantic checks (and, for validate, every target's checks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosc import load, parallel, schema
from qosc.build import build
from qosc.checks import run_checks
from qosc.diagnostics import Diagnostic, has_errors
from qosc.errors import InputError
from qosc.model import Policy


@dataclass
class Result:
    """What a validation produced: the model (when it could be built) and every diagnostic."""

    path: str
    policy: Policy | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.policy is not None and not has_errors(self.diagnostics)


def load_tree(path: str | Path) -> tuple[object | None, list[Diagnostic]]:
    try:
        return load.load_policy(path), []
    except InputError as exc:
        return None, exc.diagnostics


def validate(path: str | Path, with_targets: bool = True) -> Result:
    """Load, schema-check, build and check one policy, with every target's checks; never raises on bad input."""
    result, _, targets_ok = validate_stages(path)
    if result.policy is None:
        return result
    if with_targets and targets_ok:
        # a value that did not parse is already reported; target checks on it would only echo it
        from qosc.pipeline.units import target_checks  # the target stage builds on this one
        result.diagnostics.extend(target_checks(result.policy))
    result.diagnostics = sorted(set(result.diagnostics), key=Diagnostic.sort_key)
    return result


def validate_stages(path: str | Path, tree: Any = None, checks: Callable[[Policy], list[Diagnostic]] | None = None,
                    jobs: int = 1) -> tuple[Result, Any, bool]:
    """validate() up to and including the semantic checks, but not the target checks.

    Returns (result, tree, targets_ok): the loaded tree, and whether target
    checks apply (the model was built and every value parsed).  `tree` skips
    loading (an already loaded tree); `checks` replaces the semantic checks
    (the incremental compile checks only the devices it built, and knows the
    others' findings).  jobs != 1 lets the schema check of a large network run
    beside its build.  Diagnostics are neither sorted nor deduplicated yet.
    """
    result = Result(str(path))
    if tree is None:
        tree, diags = load_tree(path)
        result.diagnostics.extend(diags)
        if tree is None:
            return result, None, False
    policy, build_diags, schema_diags = _schema_and_build(tree, str(path), jobs)
    result.diagnostics.extend(schema_diags)
    if schema_diags:
        return result, tree, False
    result.policy = policy
    result.diagnostics.extend(build_diags)
    result.diagnostics.extend(checks(policy) if checks is not None else run_checks(policy))
    return result, tree, not has_errors(build_diags)


def _schema_and_build(tree: Any, source: str, jobs: int) -> tuple[Any, list[Diagnostic], list[Diagnostic]]:
    """(model, build diagnostics, schema diagnostics); no model when the schema check failed.

    The model is built only from a tree the schema accepts.  For a large
    network with jobs != 1 both run at once: the schema check in a forked
    process while this one builds; the build is then thrown away (and
    whatever it raised ignored) if the schema check fails.
    """
    def check_schema() -> list[Diagnostic]:
        return schema.validate(tree, lambda p, key=False: load.locate(tree, p, key=key))

    devices = tree.get("devices") if isinstance(tree, dict) else None
    count = len(devices) if isinstance(devices, dict) else 0
    policy: Policy | None
    if jobs == 1 or parallel.resolve_jobs(jobs, count // 16) < 2:
        schema_diags = check_schema()
        if schema_diags:
            return None, [], schema_diags
        policy, build_diags = build(tree, source=source)
        return policy, build_diags, []
    pending = parallel.Background(check_schema)
    try:
        policy, build_diags = build(tree, source=source)
        failure: Exception | None = None
    except Exception as exc:  # noqa: BLE001 - meaningful only if the schema accepts the tree
        policy, build_diags, failure = None, [], exc
    schema_diags = pending.result()
    if schema_diags:
        return None, [], schema_diags
    if failure is not None:
        raise failure
    return policy, build_diags, []

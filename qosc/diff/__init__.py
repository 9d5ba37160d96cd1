"""Config diffs for review: compile two versions of a policy in memory and diff every output file.

`diff_files(old, new)` compares two policy files; `diff_base(policy, rev)`
compares a policy with the same path at another git revision, whose tree is
materialised in a temporary directory with `git archive`, so its includes
resolve exactly as they did at that revision.  Nothing is written anywhere
else.  Both sides are compiled by this qosc, for every device and target,
so the diff shows what a policy change does to the generated configuration.
"""

from __future__ import annotations

from qosc.diff.compare import DiffResult, FileDiff, Generated, Side, compare, compile_side, diff_files, unified
from qosc.diff.git import GitError, diff_base, materialise
from qosc.diff.present import format_github, format_json, format_text, summary

__all__ = [
           "DiffResult",
           "FileDiff",
           "Generated",
           "GitError",
           "Side",
           "compare",
           "compile_side",
           "diff_base",
           "diff_files",
           "format_github",
           "format_json",
           "format_text",
           "materialise",
           "summary",
           "unified",
]

"""Fuzzing the readers with the corpus (issue 22): every public configuration of tests/corpus, broken the ways files
break and attackers break them, ends in diagnostics, never in a traceback.

Hypothesis draws a corpus file and spoils it: truncated anywhere, lines shuffled, dropped or repeated, a brace or
bracket deleted, a byte-order mark, NUL, escape, zero-width space or bidi override put anywhere, a word replaced
by garbage, and, in tc JSON, a value of the wrong type (list, object, null, a huge or negative number, a string
where a number goes, Infinity).  What import does with it is run: the reader (parse and interpret, through
qosc.behaviour.readback as import, verify and equiv call it), then the lift and its validation in memory
(qosc.behaviour.reconcile.settle).  Nothing may raise; every error a reader reports names a line.

Derandomized like every property test here (conftest.py); QOSC_FUZZ=deep draws new examples, ten times as many,
and QOSC_FUZZ_SCALE scales their number (tests/test_fuzz.py says how).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from helpers import fuzz_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosc.behaviour.lift import lift
from qosc.behaviour.readback import read
from qosc.behaviour.reconcile import reconcile, settle

CORPUS = Path(__file__).resolve().parent / "corpus"
ENTRIES = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
LINES = 300
"""A corpus file is fuzzed from its first lines: the readers are linear, the spoils are what matters."""
TEXTS = {e["file"]: "\n".join((CORPUS / e["file"]).read_text(encoding="utf-8").split("\n")[:LINES]) for e in ENTRIES}
HOSTILE = ["\ufeff", "\x00", "\x1b", "\u200b", "\u202e", "\u2066", "\r", "\t", "\x85", "\ud7ff", "\U0001f600"]
WRONG = [[], {}, None, "x", 1e308, -1, True, "Infinity", [1, {"a": []}], "1:zz", "0x", "\u202e"]


def _spoil(text: str, how: str, r: random.Random) -> str:
    lines = text.split("\n")
    if how == "truncate":
        return text[:r.randrange(len(text) + 1)]
    if how == "shuffle":
        k = min(len(lines), r.randrange(2, 40))
        start = r.randrange(max(1, len(lines) - k))
        part = lines[start:start + k]
        r.shuffle(part)
        return "\n".join(lines[:start] + part + lines[start + k:])
    if how == "drop":
        del lines[r.randrange(len(lines))]
        return "\n".join(lines)
    if how == "repeat":
        i = r.randrange(len(lines))
        return "\n".join(lines[:i] + [lines[i]] * r.randrange(2, 5) + lines[i:])
    if how == "brace":
        spots = [i for i, ch in enumerate(text) if ch in "{}[]\""]
        if spots:
            i = r.choice(spots)
            return text[:i] + text[i + 1:]
        return text
    if how == "char":
        i = r.randrange(len(text) + 1)
        return text[:i] + r.choice(HOSTILE) + text[i:]
    if how == "word":
        words = text.split(" ")
        words[r.randrange(len(words))] = r.choice(["", "{", "}", ";", "[", "]", "\"", "999999999999999999999", "-1",
                                                   "percent", "*", "ALIAS", "0x", "##", "set", "class-map"])
        return " ".join(words)
    return text


def _wrong_json(text: str, r: random.Random) -> str:
    """One value of one tc JSON array of the dump replaced by a value of another type."""
    out = []
    for line in text.split("\n"):
        if line.startswith("[") and r.random() < 0.5:
            try:
                items = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            objects = [o for o in items if isinstance(o, dict)]
            if objects:
                target = r.choice(objects)
                while True:
                    key = r.choice(list(target) or ["kind"])
                    if isinstance(target.get(key), dict) and target[key] and r.random() < 0.6:
                        target = target[key]
                        continue
                    break
                target[key] = r.choice(WRONG)
            line = json.dumps(items)
        out.append(line)
    return "\n".join(out)


@settings(max_examples=fuzz_examples(400), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([e["file"] for e in ENTRIES]),
       st.lists(st.sampled_from(["truncate", "shuffle", "drop", "repeat", "brace", "char", "word", "json"]),
                min_size=1, max_size=3),
       st.integers(0, 2**32 - 1))
def test_spoiled_corpus_files_end_in_diagnostics_never_in_a_traceback(name: str, spoils: list[str],
                                                                      seed: int) -> None:
    entry = next(e for e in ENTRIES if e["file"] == name)
    r = random.Random(seed)
    text = TEXTS[name]
    for how in spoils:
        text = _wrong_json(text, r) if how == "json" else _spoil(text, how, r)
    found = read(text, f"fuzz/{Path(name).name}", entry["platform"], "fuzz")
    for d in found.diagnostics:
        assert d.location is None or d.location.line >= 1
        if d.is_error and d.code in ("QOS179", "QOS200", "QOS006"):
            assert d.location is not None, d  # a reader's error names where
    if found.behaviour is None:
        assert any(d.is_error for d in found.diagnostics), found.diagnostics
        return
    lifted = lift([found.behaviour], "fuzz")
    settled = settle(lifted, "fuzz.yaml", "# fuzz\n")
    counted = reconcile([found.behaviour], lifted, [*found.diagnostics, *lifted.diagnostics, *settled.diagnostics],
                        name)
    assert counted.seen == counted.lifted + counted.named


def test_the_spoils_reach_every_reader() -> None:
    """The fuzzed files cover every reader and format (so no reader is left out of the property above)."""
    assert {e["format"] for e in ENTRIES} >= {"junos set", "junos curly", "junos xml", "ios", "tc -j dump"} or \
        {e["kind"] for e in ENTRIES} == {"junos", "ios", "catalyst", "linux"}

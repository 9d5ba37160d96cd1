"""The compile server's cut of an edited policy (qosc.cache.segments.cut with keep) is `segment`'s, whatever the edit.

`cut` reuses the last cut of a file when the edit since is inside one line of
a device's body; these tests make random edits of every kind (inside a line,
across lines, on key lines, in indentation, adding the characters `segment`
looks for) and demand exactly what cutting the new text from scratch gives.
"""

from __future__ import annotations

import random

import pytest

from qosc.cache import segments
from qosc.cache.segments import _global_hash, cut, hashes, segment

POLICY = """\
name: cut-test
services:
  best-effort: {dscp: [be], share: 50%}
  lbe: {dscp: [cs1], share: 1%}
profiles:
  edge: {role: edge, speed: 1G}
  core: {role: core, speed: 10G}
devices:
""" + "".join(f"""\
  r{d}.example.net:
    platform: junos-mx
    description: router {d}
    interfaces:
      xe-0/0/{d}: {{profile: edge}}
      xe-0/0/{d + 1}: {{profile: core, description: uplink}}
""" for d in range(12))

ALPHABET = "abcXYZ019 :-_.,{}[]#\n\t<&*!'\""


def expected(text: str) -> tuple[object, ...]:
    segs = segment(text)
    if segs is None:
        return (None,)
    digests = hashes(text, [s for s in segs if s.sid.startswith("d:")])
    return ([(s.sid, s.line, s.start, s.end) for s in segs], digests, _global_hash(text, segs))


def got(found: segments.Cut) -> tuple[object, ...]:
    if found.segs is None:
        return (None,)
    return ([(s.sid, s.line, s.start, s.end) for s in found.segs], found.digests, found.glob)


def edit(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text))
    kind = rng.randrange(4)
    if kind == 0:  # within a line: replace a few characters by letters
        end = min(len(text), at + rng.randrange(4))
        if "\n" in text[at:end]:
            end = at
        return text[:at] + "".join(rng.choice("abcdef0123 ,") for _ in range(rng.randrange(5))) + text[end:]
    if kind == 1:  # anything, anywhere
        end = min(len(text), at + rng.randrange(8))
        return text[:at] + "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(6))) + text[end:]
    if kind == 2:  # a description changed, the benchmark's edit
        anchor = text.find("}\n", at)
        return text if anchor < 0 else text[:anchor] + f", description: c{rng.randrange(100)}" + text[anchor:]
    lines = text.split("\n")  # a line deleted or duplicated
    i = rng.randrange(len(lines))
    return "\n".join(lines[:i] + lines[i + 1:] if rng.random() < 0.5 else lines[:i + 1] + lines[i:])


@pytest.fixture(autouse=True)
def _forget() -> None:
    segments._LAST.clear()


def test_random_edits_cut_like_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20261127)
    calls: list[str] = []
    real = segments.segment
    monkeypatch.setattr(segments, "segment", lambda text: calls.append(text) or real(text))
    text, short = POLICY, 0
    cut("p.yaml", text, True)
    for _ in range(3000):
        new = edit(text, rng)
        before = len(calls)
        found = cut("p.yaml", new, True)
        assert got(found) == expected(new), (text, new)
        short += len(calls) == before and new != text
        text = new if found.segs is not None or rng.random() < 0.3 else POLICY
        if found.segs is None:
            cut("p.yaml", text, True)
    assert short > 300  # the edits within a line did take the short way


def test_an_edit_inside_a_line_reuses_the_cut_and_moves_later_segments() -> None:
    first = cut("p.yaml", POLICY, True)
    at = POLICY.index("description: router 3") + len("description: router 3")
    new = POLICY[:at] + " (spare)" + POLICY[at:]
    calls = []
    real = segments.segment
    segments.segment = lambda text: calls.append(text) or real(text)  # type: ignore[assignment]
    try:
        found = cut("p.yaml", new, True)
    finally:
        segments.segment = real  # type: ignore[assignment]
    assert calls == []  # not cut again
    assert got(found) == expected(new)
    moved = {s.sid: s.start - o.start for s, o in zip(found.segs or [], first.segs or [], strict=True)}
    assert moved["d:r3.example.net"] == 0 and moved["d:r4.example.net"] == len(" (spare)")
    assert found.digests["d:r3.example.net"] != first.digests["d:r3.example.net"]
    assert found.digests["d:r4.example.net"] == first.digests["d:r4.example.net"]


def test_without_keep_nothing_is_remembered() -> None:
    cut("p.yaml", POLICY, False)
    assert "p.yaml" not in segments._LAST

"""Grammars: what a dialect accepts, as data with a source for every rule, checked on the statement tree.

A target's grammar validates the tree it lowered before anything is
serialized, so a statement the box would refuse is a qosc bug reported at
the policy line it came from (QOS199), never a file an engineer loads.
Each dialect implements `Grammar.check(document)`; this package holds what
they share: the record of where a rule comes from and the violation a check
reports (here), the value types (ranges, lengths, patterns, enumerations,
unions, as vendor schemas state them: qosc.grammar.types), and the engine of
line-oriented dialects, statement forms in modes (qosc.grammar.forms).

Value types serialise to plain JSON (`to_json` / `value_type`) so a grammar
derived from a vendor's published schema by a script is committed as data,
with the module and revision it came from, never as the vendor's files.
"""

from __future__ import annotations

from qosc.grammar.base import Grammar, Source, Violation
from qosc.grammar.forms import CommandGrammar, Form, match_form
from qosc.grammar.types import (
    Anything,
    DecimalRange,
    Enum,
    IntRange,
    String,
    Union,
    ValueType,
    check_words,
    value_type,
)

__all__ = ["Anything", "CommandGrammar", "DecimalRange", "Enum", "Form", "Grammar", "IntRange", "Source", "String",
           "Union", "ValueType", "Violation", "check_words", "match_form", "value_type"]

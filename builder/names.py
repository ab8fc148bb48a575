"""Names as identities and as text: NFC, without control or bidirectional characters.

A name from data (a model, task, label) reaches pages, file names, CSV cells and the
terminal. Control characters there do harm (an ESC sequence sets the terminal's title, a
NUL cuts a string), and bidirectional overrides make text read other than it is (an RLO
reverses a label); the NFC and NFD forms of one name look the same but would be two models
(PRODUCT.md, "Untrusted checkouts"). So names are cleaned (`clean`) before they become
identities, with a warning, and any text from data that reaches a message is `printable`.
"""

from __future__ import annotations

import re
import unicodedata

#: C0 and C1 controls (tab, newline and carriage return included: a name is one line), the
#: Unicode bidirectional marks, embeddings, overrides and isolates, and the BOM/ZWNBSP.
UNSAFE = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff"
_UNSAFE = re.compile(f"[{UNSAFE}]")
#: The same class in RE2 syntax, for DuckDB's `regexp_replace`.
UNSAFE_RE2 = "[\\x00-\\x1f\\x7f-\\x9f\\x{061c}\\x{200e}\\x{200f}\\x{202a}-\\x{202e}\\x{2066}-\\x{2069}\\x{feff}]"


def clean(name: str) -> str:
    """`name` in NFC without control or bidirectional characters."""
    return unicodedata.normalize("NFC", _UNSAFE.sub("", name))


def is_clean(name: str) -> bool:
    return not _UNSAFE.search(name) and unicodedata.is_normalized("NFC", name)


def printable(text: str) -> str:
    """`text` with each control or bidirectional character shown as its escape (`\\x1b`,
    `\\u202e`), for a terminal line that reads as it is."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)

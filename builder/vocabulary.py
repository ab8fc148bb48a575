"""Names shared by every stage, declared once: the estimator modes and the relationships.

The evals.json reader checks a relationship against `RELATIONSHIPS`, the CLI offers them,
the config checks a default against them and the provenance signal counts them; the store
computes, the config accepts and the pages tabulate the six `MODES` in this order
(STATISTICS.md). A new value added here reaches all of them.
"""

from __future__ import annotations

#: The six estimators, in the order tables print them (E: expected, C: with truncation as
#: failure; I/P/O: independent, pooled, observed).
MODES = ("E_I", "E_P", "E_O", "C_I", "C_P", "C_O")

#: Who reported a result, as evals.json and EEE records may say.
RELATIONSHIPS = ("first_party", "third_party", "collaborative")
#: The provenance signal's values: a relationship, or `unspecified` when none was said.
PROVENANCE = (*RELATIONSHIPS, "unspecified")

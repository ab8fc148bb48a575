"""The stage map holds: no module imports from a later stage, and no import cycle.

The map and the checks live in `scripts/import_graph.py` (which prints the graph for a
reader); here they run on the package's source (parsed with `ast`, so imports inside
functions count too) and on small hand-made graphs, to show the checks can fail.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
assert _spec is not None and _spec.loader is not None
graph_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(graph_tool)


def test_no_module_imports_from_a_later_stage_and_no_cycle():
    assert graph_tool.check() == []


def test_every_module_is_under_the_size_bound():
    assert graph_tool.long_modules() == []
    assert graph_tool.long_modules(limit=10), "the check must see a module longer than 10 lines"


def test_every_module_has_a_stage():
    for module in graph_tool.graph():
        graph_tool.stage_of(module)  # raises for a module the map does not place


def test_the_graph_sees_relative_and_function_level_imports():
    edges = graph_tool.graph()
    assert "store.pointsdb" in edges["stats.leaderboard"]  # `from ..store.pointsdb import ...`
    assert "build" in edges["cli"]  # imported inside a function


def test_the_checks_catch_a_cycle_and_an_upward_import():
    edges = {"store.a": {"site.b"}, "site.b": {"site.c"}, "site.c": {"site.b"}}
    assert graph_tool.cycles(edges) == [["site.b", "site.c"]]
    assert graph_tool.upward(edges) == [("store.a", "site.b")]
    assert graph_tool.upward({"site.b": {"store.a"}, "store.a": set()}) == []

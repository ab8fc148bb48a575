"""The import graph of the `reasonboard` package (builder/), checked against the stage map.

    python scripts/import_graph.py [--edges]

Every module belongs to one stage; a module may import from its own stage and earlier ones,
never from a later one, and no import cycle may exist (function-level imports count: they
hide a cycle, they do not remove it). The README's "How it is built" shows the same map;
tests/test_architecture.py runs `check()` and `long_modules()` (every module under 400 lines).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "builder"

#: Stages in pipeline order: (name, module prefixes). The first matching prefix wins, so a
#: more specific prefix comes before a general one.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("errors", "names", "confined", "cachekey", "atomic", "resources", "slugs", "vocabulary",
                    "progress", "interrupt", "__init__")),
    # The project's settings (site.toml, where its directories are) are an input like the data.
    ("sources", ("sources", "config", "project")),
    ("store", ("store",)),
    ("statistics", ("stats",)),
    ("signals", ("signals",)),
    # What a build hands the site (results.py), and the data files written from it.
    ("outputs", ("results", "outputs", "sampleoutputs", "compareoutputs", "analysesoutputs")),
    ("site", ("site",)),
    ("writers", ("diff", "export", "ingestreport", "ingest")),
    ("commands", ("buildstate", "build", "release", "demo", "demofiles", "demoworld", "democompress", "newproject",
                  "serve", "watch", "cli", "__main__")),
)


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" and len(rel.parts) > 1 else rel.parts
    return ".".join(parts)


def stage_of(module: str) -> int:
    for index, (_, prefixes) in enumerate(STAGES):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                return index
    raise KeyError(f"{module}: no stage in STAGES (scripts/import_graph.py)")


def _imported(module: str, is_package: bool, node: ast.ImportFrom | ast.Import) -> list[str]:
    """Package-internal names an import statement reaches (relative or `reasonboard.…`),
    relative to the package: `from .x import y` in `site.model` gives `site.x.y`."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level:
        base = module.split(".") if module != "__init__" else []
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        stem = ".".join(base + ([node.module] if node.module else []))
        return [f"{stem}.{a.name}" if stem else a.name for a in node.names]
    else:
        names = [f"{node.module}.{a.name}" for a in node.names]
    return [n[len("reasonboard."):] for n in names if n.startswith("reasonboard.")]


def graph() -> dict[str, set[str]]:
    """module → the package modules it imports (the submodule when one is named, else the
    package whose `__init__` provides the name)."""
    files = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in _imported(module, is_package, node):
                while name and name not in files:
                    name = name.rpartition(".")[0]
                name = name or "__init__"
                if name != module:
                    edges[module].add(name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def upward(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports from a later stage."""
    return sorted((a, b) for a, targets in edges.items() for b in targets if stage_of(b) > stage_of(a))


def check() -> list[str]:
    edges = graph()
    problems = [f"cycle: {' ⇄ '.join(c)}" for c in cycles(edges)]
    problems += [f"upward import: {a} ({STAGES[stage_of(a)][0]}) imports {b} ({STAGES[stage_of(b)][0]})"
                 for a, b in upward(edges)]
    return problems


#: The bound on a module's size: one concept a module reads in one sitting.
MAX_LINES = 400


def module_lines() -> dict[Path, int]:
    """Every module of the package and its number of lines."""
    return {p: sum(1 for _ in p.open(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}


def long_modules(limit: int = MAX_LINES) -> list[str]:
    """The modules of `limit` lines or more, with their sizes."""
    return [f"{p.relative_to(ROOT)} has {n} lines (at most {limit - 1})"
            for p, n in sorted(module_lines().items()) if n >= limit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="print every module's imports")
    args = parser.parse_args()
    edges = graph()
    for index, (name, _) in enumerate(STAGES):
        members = sorted(m for m in edges if stage_of(m) == index)
        uses = sorted({STAGES[stage_of(b)][0] for m in members for b in edges[m]} - {name},
                      key=lambda s: [n for n, _ in STAGES].index(s))
        print(f"{index} {name:<11} {len(members):>3} modules; imports from: {', '.join(uses) or '—'}")
        if args.edges:
            for m in members:
                print(f"    {m} → {', '.join(sorted(edges[m])) or '—'}")
    lines = module_lines()
    biggest = max(lines, key=lambda p: lines[p])
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports; largest module "
          f"{biggest.relative_to(ROOT)} ({lines[biggest]} lines)")
    problems = check() + long_modules()
    for line in problems:
        print(line)
    print(f"no cycle, no upward import, no module of {MAX_LINES} lines or more" if not problems
          else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

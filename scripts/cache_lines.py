"""How many lines the caching, forking and garbage-collector machinery takes.

    python scripts/cache_lines.py [--list] [--at REV]

The machinery is what a build keeps between runs, or does to go faster than one process
rendering every page from scratch: the PointsDB cache and its partial ingest, the build
state (with the summary it keeps for a build with nothing to do), the page
keys, the salted cache names, the render pool (the one fork), the collector's freeze, and
the writer's byte comparison. The modules that are
nothing else are counted whole; in modules that do something else too, the named functions
and classes are counted, and in the functions that use the machinery among other work (the
build, the ingest, the ranking, the render loop), the statements that name it (`WIRING`: a
statement, or a compound statement whose condition, that mentions one of the listed names;
its whole text counts). Three figures per entry:

* `raw`: every line;
* `code+doc`: lines that are not blank and not only a comment (docstrings count);
* `code`: the same without docstrings.

The issue that asked to halve the machinery counted it at about 2,100 lines; the target is
at most half of that. `--at REV` counts a git revision's files the same way (what it lacks,
a module since removed or one not yet written, is listed as absent), so earlier engines are
counted by the same rule: the modules removed since (`forking.py`, the signals memo, the
stat memo of input digests, the pickling shortcuts, the statistics memo, the analyses
memo, the collector pause, the leftovers module folded into the PointsDB cache) are in the lists below.
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Modules that are caching, forking or collector machinery and nothing else.
WHOLE = (
    "builder/buildstate.py",  # the build state: a build with nothing changed does nothing
    "builder/cachekey.py",  # every cache file's name salted with this user's secret
    "builder/store/cache.py",  # the PointsDB cache: fingerprints, partial ingest, reuse
    "builder/site/reuse.py",  # the page keys: a page kept when its key and file are unchanged
    "builder/site/workers.py",  # the render pool, the build's one fork
    # Removed since, counted when `--at` names a revision that has them:
    "builder/forking.py",  # the ranking fork and the warm-up fork
    "builder/gcpause.py",  # gc.freeze() around the render phase (now in build.py's wiring)
    "builder/store/leftovers.py",  # what a killed build left in the cache folder (now in store/cache.py)
    "builder/stats/memo.py",  # the statistics memo (npz) of intervals and win rates
    "builder/signals/memo.py",  # the signals memo (pickled shards)
    "builder/store/digests.py",  # the stat memo of input digests
    "builder/stats/records.py",  # quick_pickle: the pickling shortcuts for the ranking fork's pipe
    "builder/stats/analysismemo.py",  # the per-sample analyses memo (JSON; now summed by the store)
)

#: Parts of other modules: (module, qualified names of functions or classes).
PARTS = (
    ("builder/site/writer.py", ("Staged", "Stage.put", "Stage._link", "_same_bytes")),  # the byte comparison
    ("builder/site/render.py", ("PageInputs",)),  # the record whose digest is a page's key
    ("builder/build.py", ("cache_salt", "BuildSummary.recorded", "BuildSummary.up_to_date")),  # the state's summary
    ("builder/sampleoutputs.py", ("samples_keys",)),  # a published samples file's key
    ("builder/stats/leaderboard.py", ("memo_salt",)),  # removed since, with stats/memo.py
)

#: Functions doing other work too: (module, qualified name, the names whose statements count).
WIRING = (
    ("builder/build.py", "run_build", ("previous", "key", "build_key", "settings_key", "settings", "load_state",
                                       "clear_state", "save_state", "reuse", "frozen_heap", "freeze", "unfreeze",
                                       "fingerprints", "sample_keys")),
    ("builder/build.py", "gather", ("memo", "memo_path", "salt", "analyses_memo", "analyses_path", "salted",
                                    "cache_salt", "sources", "known")),
    ("builder/store/ingest.py", "ingest_points", ("digests", "kept", "kept_files", "touched", "recorded", "known")),
    ("builder/store/ingest.py", "_choose_points", ("only_touched",)),
    ("builder/site/publishing.py", "publish", ("reuse",)),
    ("builder/sampleoutputs.py", "samples_files", ("keep", "kept")),
    ("builder/site/render.py", "iter_site", ("reuse", "reused", "key", "salt", "page_key", "workers",
                                             "can_fork", "processes")),
    ("builder/stats/leaderboard.py", "with_analyses", ("memo",)),
    ("builder/stats/leaderboard.py", "rank_board", ("memo",)),
    ("builder/stats/leaderboard.py", "_rank_on", ("memo",)),
    ("builder/stats/leaderboard.py", "_pairwise", ("memo",)),
    ("builder/stats/pairwise.py", "pair_win_rates", ("memo", "known", "compute")),
    ("builder/stats/reasonscore.py", "reasonscore_v2", ("memo", "known", "compute")),
    ("builder/stats/analyses.py", "statement_rows", ("memo", "found")),
)


def _counted(source: str, first: int, last: int) -> tuple[int, int, int]:
    """(raw, code+doc, code) over lines `first`..`last` (1-based, inclusive) of `source`."""
    lines = source.splitlines()
    comment_only: set[int] = set()
    code_lines: set[int] = set()
    docstring: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comment_only.add(token.start[0])
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                tokenize.ENDMARKER):
            code_lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            head = node.body[0]
            if isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant) and isinstance(head.value.value, str):
                docstring.update(range(head.lineno, (head.end_lineno or head.lineno) + 1))
    span = range(first, last + 1)
    raw = len(span)
    with_doc = sum(1 for n in span if n in code_lines and lines[n - 1].strip())
    code = sum(1 for n in span if n in code_lines and n not in docstring and lines[n - 1].strip())
    del comment_only  # a line with code and a comment counts as code; a comment alone is not in code_lines
    return raw, with_doc, code


def _find(tree: ast.Module, qualname: str) -> ast.AST | None:
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for name in qualname.split("."):
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)
        if node is None:
            return None
        scope = node.body  # type: ignore[attr-defined]
    return node


def _names(node: ast.AST) -> set[str]:
    """Every name a piece of code mentions: variables, attributes, keyword arguments."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.keyword) and sub.arg:
            found.add(sub.arg)
    return found


def _wired(body: list[ast.stmt], names: set[str]) -> set[int]:
    """The lines of the statements in `body` that mention `names` (see the module docstring)."""
    lines: set[int] = set()
    for stmt in body:
        header = [getattr(stmt, f) for f in ("test", "iter", "items", "target") if getattr(stmt, f, None) is not None]
        inner = [b for f in ("body", "orelse", "finalbody") for b in [getattr(stmt, f, None)] if isinstance(b, list)]
        inner += [h.body for h in getattr(stmt, "handlers", [])]
        header_names = set().union(*(_names(h if isinstance(h, ast.AST) else ast.Tuple(elts=[
            i.context_expr for i in h], ctx=ast.Load())) for h in header)) if header else set()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in names:
            lines.update(range(stmt.lineno, stmt.end_lineno + 1))  # type: ignore[operator]
        elif inner and not (header_names & names):
            for block in inner:
                lines |= _wired(block, names)
        elif (header_names if inner else _names(stmt)) & names:
            lines.update(range(stmt.lineno, stmt.end_lineno + 1))  # type: ignore[operator]
    return lines


def _read(path: str, at: str | None) -> str | None:
    """A file of the working tree, or of revision `at`; None when it has no such file."""
    if at is None:
        file = ROOT / path
        return file.read_text(encoding="utf-8") if file.is_file() else None
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{at}:{path}"], capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def entries(at: str | None = None) -> tuple[list[tuple[str, tuple[int, int, int]]], list[str]]:
    """Every counted entry (a module, or `module:function`) with its three figures, and the
    entries the tree (or revision `at`) does not have."""
    rows: list[tuple[str, tuple[int, int, int]]] = []
    absent: list[str] = []
    for path in WHOLE:
        source = _read(path, at)
        if source is None:
            absent.append(path)
            continue
        rows.append((path, _counted(source, 1, len(source.splitlines()))))
    for path, names in PARTS:
        source = _read(path, at)
        if source is None:
            absent += [f"{path}:{name}" for name in names]
            continue
        tree = ast.parse(source)
        for name in names:
            node = _find(tree, name)
            if node is None:
                absent.append(f"{path}:{name}")
                continue
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
            rows.append((f"{path}:{name}", _counted(source, first, node.end_lineno)))  # type: ignore[attr-defined]
    for path, name, wiring in WIRING:
        source = _read(path, at)
        node = _find(ast.parse(source), name) if source is not None else None
        if node is None:
            absent.append(f"{path}:{name}")
            continue
        lines = _wired(node.body, set(wiring))  # type: ignore[attr-defined]
        counts = [_counted(source, n, n) for n in sorted(lines)]
        rows.append((f"{path}:{name} (statements naming {', '.join(wiring)})",
                     tuple(sum(c[i] for c in counts) for i in range(3))))  # type: ignore[misc]
    return rows, absent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print each counted module and function")
    parser.add_argument("--at", metavar="REV", help="count a git revision's files instead of the working tree's")
    args = parser.parse_args()
    rows, absent = entries(args.at)
    if args.list:
        print(f"{'raw':>5} {'code+doc':>8} {'code':>5}  entry")
        for name, (raw, with_doc, code) in rows:
            print(f"{raw:5d} {with_doc:8d} {code:5d}  {name}")
        if absent:
            print(f"absent: {', '.join(absent)}")
    totals = [sum(r[1][i] for r in rows) for i in range(3)]
    print(f"{totals[0]:5d} {totals[1]:8d} {totals[2]:5d}  total ({len(rows)} entries: raw, code+doc, code)")


if __name__ == "__main__":
    main()

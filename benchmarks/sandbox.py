"""What Jinja's sandbox costs the render: every page of a demo site rendered in
`ImmutableSandboxedEnvironment` (what builds use) and in a plain `Environment` with the same
loader and settings, alternately, in one process (one render worker), best of N rounds.

    .venv/bin/python benchmarks/sandbox.py [--models N] [--rounds R]

Prints the pages rendered, the seconds of each and the sandbox's cost per page and in all.
CPU time is reported too (meaningful when other jobs share the machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parents[1]
os.environ["REASONBOARD_WORKERS"] = "1"  # one process: the render itself, nothing forked

from reasonboard import demo  # noqa: E402
from reasonboard.build import BuildOptions, gather, load_settings  # noqa: E402
from reasonboard.results import BuildResults  # noqa: E402
from reasonboard.site import render as render_module  # noqa: E402
from reasonboard.site import templating  # noqa: E402


def plain(folders):
    """The environment builds used before the sandbox: same loader, same settings."""
    env = jinja2.Environment(loader=templating.ConfinedLoader(folders), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, auto_reload=False)
    env.globals["fmt"] = templating.FORMAT
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rb-sandbox-"))
    demo.write_demo(tmp / "data", models=args.models, seed=0)
    options = BuildOptions(project=ROOT, data_dir=tmp / "data", cache_dir=tmp / "cache")
    project, config, bands = load_settings(options)
    g = gather(options, project, config, bands)
    results = BuildResults(config=g.config, leaderboard=g.board.leaderboard, pairwise=g.board.pairwise,
                           curves=g.board.curves, signals=g.signals, evaluations=g.board.evaluations, bands=bands,
                           task_rankings=g.board.task_rankings, timings={})
    best: dict[str, tuple[float, float]] = {}
    pages = 0
    for _ in range(args.rounds):
        for name, make in (("sandboxed", templating.sandboxed), ("plain", plain)):
            render_module.sandboxed = make
            start, cpu = time.perf_counter(), time.process_time()
            files = render_module.render_site(results, g.project.content_dirs, g.project.templates_dirs)
            took = (time.perf_counter() - start, time.process_time() - cpu)
            pages = sum(1 for p in files if p.endswith(".html"))
            best[name] = min(best.get(name, took), took)
    render_module.sandboxed = templating.sandboxed
    (wall_s, cpu_s), (wall_p, cpu_p) = best["sandboxed"], best["plain"]
    print(f"{pages} pages ({args.models} models), best of {args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
    print(f"  plain Environment:              {wall_p:6.2f} s wall, {cpu_p:6.2f} s CPU")
    print(f"  ImmutableSandboxedEnvironment:  {wall_s:6.2f} s wall, {cpu_s:6.2f} s CPU")
    print(f"  sandbox cost: {100 * (cpu_s / cpu_p - 1):+.1f} % CPU, {1000 * (cpu_s - cpu_p) / pages:+.3f} ms per page")


if __name__ == "__main__":
    sys.exit(main())

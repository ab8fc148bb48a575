"""The scale benchmark: build an EvalCards-size site and rebuild it.

    python benchmarks/run.py [--models 2000] [--eee PATH] [--cards PATH] [--rounds 3] [--keep DIR] [--profile]

Fixture: `reasonboard demo --models N` points plus the full Every Eval Ever corpus of
`../shared/data/eee-2026-02/` in `eee/` and the 16 benchmark cards. Measured, each in a
fresh process so peak memory is the build's own:

1. a full build from an empty cache (target: at most 60 s, peak memory under 2 GB);
2. page throughput (page model plus templates, every HTML page) against plain Jinja2
   rendering comparable model pages from the JSON data files in the same run (target:
   ratio at least 0.5). Both sides are timed the same way, `--rounds` times, alternating,
   each in a fresh process with its input loaded before the clock starts and the cyclic GC
   paused; the ratio is of the medians (this VM's speed drifts by half within minutes,
   so single timings taken minutes apart cannot be compared). The throughput inside the
   full build is printed too;
3. a rebuild with unchanged inputs (target: at most 2 s);
4. a rebuild after changing one model's points file: its time, how many files it
   rewrote, and whether the result equals a clean build byte for byte.

`--profile` adds a cProfile summary of the full build (top functions by cumulative time).

`--scale` instead measures, in one run, at `--sizes` (default 2000: about 2,500 evaluations
beside the EEE corpus; `--data DIR` copies a fixture made earlier instead of making one),
each build in a fresh process with its CPU seconds (the build process, DuckDB's threads and
the render workers it reaped) beside its wall time:

* the cold build: an empty cache and a new output folder, as in a CI job with no cache
  restored; its site's bytes, largest file and peak RSS; its ratio to the I/O floor
  (parsing every input file once, JSON, CSV, JSONL, and writing the same output bytes to a
  fresh folder), and beside it to that floor plus one DuckDB scan decoding every trial once
  (`decode_scan`: the first floor reads the trials files as bytes only);
* a build with nothing changed;
* the pull-request workflow's two builds sharing one restored cache: a copy of the cold
  build's cache, then the base into a new folder and the head (one model's trials changed,
  in its own copy of the data) into another, as the scaffolded pr-report.yml does;
* a rebuild after one model's trials change, against the cold build (`--verify` also makes
  a clean build of the changed data and compares the two sites byte for byte).

With two sizes, the growth exponents `log(y2/y1) / log(n2/n1)` of the cold builds.
"""

from __future__ import annotations

import argparse
import csv
import gc
import hashlib
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EEE = ROOT.parent / "shared" / "data" / "eee-2026-02"
DEFAULT_CARDS = ROOT.parent / "shared" / "data" / "benchmark-cards"

BUILD_SNIPPET = """
import json, sys, time
from pathlib import Path
import reasonboard.build
from reasonboard.build import BuildOptions, run_build
data, out, cache, profile = sys.argv[1:5]
site_timings = {}
import importlib
try:  # where the build calls the renderer: site.publishing now, build.py in older revisions
    _caller = importlib.import_module("reasonboard.site.publishing")
except ImportError:
    _caller = reasonboard.build
_iter_site = _caller.iter_site
def iter_site(*args, **kwargs):
    # The render phase also serialises the data files and makes the assets (the Vega bundle
    # from an empty cache); page throughput counts only the page model and the templates.
    return _iter_site(*args, **kwargs, timings=site_timings)
_caller.iter_site = iter_site
options = BuildOptions(data_dir=Path(data), out_dir=Path(out), cache_dir=Path(cache),
                       content_dir=Path("content"))
if profile == "1":
    import cProfile, pstats
    prof = cProfile.Profile()
    summary = prof.runcall(run_build, options)
    pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
else:
    summary = run_build(options)
import resource
print(json.dumps({"peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  # the largest forked render worker (or chart warm-up) of this build
                  "worker_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "seconds": summary.seconds, "fresh": summary.fresh, "pages": summary.pages,
                  "files": summary.files, "changed": summary.changed, "timings": summary.timings,
                  "site_timings": site_timings}))
"""

DUMP_SNIPPET = """
import pickle, sys
from pathlib import Path
import reasonboard.build
from reasonboard.build import BuildOptions, run_build
data, out, cache, target = sys.argv[1:5]
class Captured(Exception):
    pass
def iter_site(results, content_dir, *args, **kwargs):
    with open(target, "wb") as f:
        pickle.dump((results, content_dir), f, protocol=pickle.HIGHEST_PROTOCOL)
    raise Captured
import importlib
try:  # where the build calls the renderer: site.publishing now, build.py in older revisions
    importlib.import_module("reasonboard.site.publishing").iter_site = iter_site
except ImportError:
    reasonboard.build.iter_site = iter_site
options = BuildOptions(data_dir=Path(data), out_dir=Path(out), cache_dir=Path(cache),
                       content_dir=Path("content"))
try:
    run_build(options)
except Captured:
    pass
"""

OURS_SNIPPET = """
import json, pickle, sys
from pathlib import Path
from reasonboard import TEMPLATES_DIR
from reasonboard.site import render_site
dump, cache = sys.argv[1:3]
with open(dump, "rb") as f:
    results, content_dir = pickle.load(f)
timings = {}
files = render_site(results, content_dir, TEMPLATES_DIR, timings=timings)
pages = [body for path, body in files.items() if path.endswith(".html")]
print(json.dumps({"seconds": timings["page model"] + timings["templates"], "pages": len(pages),
                  "bytes": sum(map(len, pages))}))
"""

PLAIN_SNIPPET = """
import json, sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
from run import plain_jinja_render
print(json.dumps(plain_jinja_render(Path(sys.argv[1]))))
"""

PLAIN_TEMPLATE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ m.label }} · {{ site_title }}</title><link rel="stylesheet" href="../assets/style.css"></head>
<body><header><a href="../index.html">{{ site_title }}</a><nav><ul>
{% for label, href in nav %}<li><a href="../{{ href }}">{{ label }}</a></li>{% endfor %}
</ul></nav></header><main>
<h1>{{ m.label }}</h1>
<p>Model <code>{{ m.model }}</code> · template <code>{{ m.template }}</code> · sampler <code>{{ m.sampler }}</code></p>
{% set rs = m.reasonscore %}{% set band = bands.get(m.band) %}
<p>ReasonScore {{ "%.1f"|format(rs.center) }} ± {{ "%.1f"|format(rs.margin) }}
[{{ "%.1f"|format(rs.ci_low) }}, {{ "%.1f"|format(rs.ci_high) }}]</p>
{% if band %}<p><span class="band band-{{ m.band }}">{{ band.label }}</span> {{ band.text }}</p>{% endif %}
<p>Rank {{ m.rank if m.rank is not none else "—" }}{% if m.rank_range %} (plausible {{ m.rank_range[0] }}–{{ m.rank_range[1] }}){% endif %}</p>
<p>{{ "%.0f"|format(m.avg_tokens) }} tokens per trial; truncated {{ "%.1f%%"|format(100 * m.truncation_rate) }}</p>
<table><thead><tr><th>Task</th><th>C_P</th><th>Interval</th><th>Trials</th><th>Truncated</th>
{% for mode in modes %}<th>{{ mode }}</th>{% endfor %}</tr></thead><tbody>
{% for task, t in m.tasks.items() %}<tr><th><a href="../tasks/{{ task }}.html">{{ task }}</a></th>
<td>{{ "%.3f"|format(t.estimate) }}</td><td>[{{ "%.3f"|format(t.low) }}, {{ "%.3f"|format(t.high) }}]</td>
<td>{{ t.total }}</td><td>{{ t.truncated }}</td>
{% for mode in modes %}{% set c = t.modes[mode] %}<td>{{ "%.3f"|format(c[0]) }} [{{ "%.3f"|format(c[1]) }}, {{ "%.3f"|format(c[2]) }}]</td>{% endfor %}</tr>
{% endfor %}</tbody></table>
{% if m.tiers %}<table><thead><tr><th>Tier</th><th>ReasonScore v1</th><th>Tokens/trial</th></tr></thead><tbody>
{% for tier, t in m.tiers.items() %}<tr><th>{{ tier }}</th><td>{{ "%.1f"|format(t.reasonscore) }}</td><td>{{ "%.0f"|format(t.avg_tokens) }}</td></tr>{% endfor %}
</tbody></table>{% endif %}
<ul>{% for other in m.tied_with %}{% set o = by_id[other] %}<li><a href="{{ o.slug }}.html">{{ o.label }}</a></li>{% endfor %}</ul>
<table><thead><tr><th>Opponent</th><th>P(win)</th><th>P(loss)</th><th>Tasks shared</th></tr></thead><tbody>
{% for n in neighbours %}{% set o = by_id[n.id] %}<tr><th><a href="{{ o.slug }}.html">{{ o.label }}</a></th>
<td>{{ "%.3f"|format(n.win_rate) }}</td><td>{{ "%.3f"|format(1 - n.win_rate) }}</td><td>{{ n.tasks_shared }}</td></tr>{% endfor %}
</tbody></table>
<table><thead><tr><th>Benchmark</th><th>Metric</th><th>Reported by</th><th>Missing for reproducibility</th><th>Signals</th></tr></thead><tbody>
{% for t in reported %}<tr><th><a href="../benchmarks/{{ t.benchmark }}.html">{{ t.benchmark }}</a></th><td>{{ t.metric }}</td>
<td>{{ t.parties | join(", ") }}</td>
<td>{% if t.reproducibility.missing %}<ul>{% for f in t.reproducibility.missing %}<li>{{ f }}</li>{% endfor %}</ul>{% else %}none{% endif %}</td>
<td><ul><li title="reproducibility">R {{ "gap" if t.reproducibility.gap else "reported" }}</li>
<li title="provenance">P {{ "1st party only" if t.provenance.first_party_only else ("multi-party" if t.provenance.multi_party else "one party") }}</li>
<li title="comparability">X {{ "diverges" if t.comparability.flag else ("not checked" if t.comparability.flag is none else "within") }}</li></ul></td></tr>
{% endfor %}</tbody></table>
</main><footer>{{ site_title }}. Every score is shown with its 95% interval.</footer></body></html>"""

def cpu_of_children() -> float:
    """CPU seconds (user and system) of every child process waited for so far, with the
    children they waited for (a build's render workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured_build(data: Path, out: Path, cache: Path, profile: bool = False) -> tuple[dict, float, int]:
    """One build in a child process: (its summary, wall seconds, this child's own peak RSS in
    MB; the summary's `worker_rss_kb` is its largest forked worker's, its `cpu` the CPU
    seconds of the build and its workers); with `profile`, the child's profile is printed."""
    cpu = cpu_of_children()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", BUILD_SNIPPET, str(data), str(out), str(cache),
                             "1" if profile else "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - start
    # RUSAGE_CHILDREN is a maximum over every child so far; the child reports its own peak.
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{stderr}")
    if profile:
        print(stderr)
    summary = json.loads(stdout.strip().splitlines()[-1])
    summary["cpu"] = cpu_of_children() - cpu
    return summary, wall, int(summary.get("peak_rss_kb", 0)) // 1024


def site_size(site: Path) -> tuple[int, int, str, int]:
    """(total bytes, largest file's bytes, its path, file count) of a built site."""
    total, largest, largest_path, count = 0, 0, "", 0
    for p in site.rglob("*"):
        if p.is_file():
            size = p.stat().st_size
            total += size
            count += 1
            if size > largest:
                largest, largest_path = size, p.relative_to(site).as_posix()
    return total, largest, largest_path, count


def io_floor(data: Path, site: Path, work: Path) -> float:
    """Seconds to parse every input once and write the site's bytes to a fresh directory.

    The site's bytes are read into memory before the clock starts; inputs are parsed by
    kind (JSON documents, CSV rows, JSONL lines; anything else read as bytes)."""
    outputs = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    target = work / "floor"
    shutil.rmtree(target, ignore_errors=True)
    gc.collect()
    start = time.perf_counter()
    for path in sorted(data.rglob("*")):
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if path.suffix == ".json":
            json.loads(raw)
        elif path.suffix == ".jsonl":
            for line in raw.splitlines():
                if line.strip():
                    json.loads(line)
        elif path.suffix == ".csv":
            list(csv.reader(io.StringIO(raw.decode("utf-8"))))
    for rel, body in sorted(outputs.items()):
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(body)
    seconds = time.perf_counter() - start
    shutil.rmtree(target, ignore_errors=True)
    return seconds


def decode_scan(data: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, trials) of one DuckDB scan that decodes every value of every
    trials file once (a hash of each column, aggregated): what any build from trials must at
    least do beyond reading their bytes. DuckDB's threads are this process's, so CPU counts them."""
    import duckdb

    files = sorted(str(p) for p in (data / "trials").glob("*.parquet"))
    if not files:
        return 0.0, 0.0, 0
    con = duckdb.connect()
    cpu, start = time.process_time(), time.perf_counter()
    (trials, *_hashes), = con.execute("SELECT count(*), bit_xor(hash(COLUMNS(*))) FROM read_parquet(?)",
                                      [files]).fetchall()
    found = time.process_time() - cpu, time.perf_counter() - start, int(trials)
    con.close()
    return found


def make_fixture(data: Path, models: int, eee: Path, cards: Path) -> None:
    shutil.rmtree(data, ignore_errors=True)
    subprocess.run([sys.executable, "-c", "from reasonboard.cli import main; main()", "demo", "--models", str(models), "--out", str(data)],
                   cwd=ROOT, check=True, capture_output=True)
    shutil.copytree(eee, data / "eee")
    shutil.copytree(cards, data / "cards")


def evaluation_count(site: Path) -> int:
    with (site / "data" / "leaderboard.csv").open(encoding="utf-8") as fh:
        return sum(1 for _ in fh) - 1


def scale(args: argparse.Namespace, work: Path) -> None:
    """The scale figures (see the module docstring)."""
    rows = []
    for models in args.sizes:
        data, site, cache = work / f"data-{models}", work / f"site-{models}", work / f"cache-{models}"
        for path in (site, cache):
            shutil.rmtree(path, ignore_errors=True)
        if args.data is not None:
            shutil.rmtree(data, ignore_errors=True)
            shutil.copytree(args.data, data)
        else:
            make_fixture(data, models, args.eee, args.cards)
        summary, wall, peak = measured_build(data, site, cache)
        total, largest, largest_path, count = site_size(site)
        n = evaluation_count(site)
        worker = int(summary.get("worker_rss_kb", 0)) // 1024
        rows.append({"models": models, "evaluations": n, "wall": wall, "cpu": summary["cpu"], "bytes": total,
                     "largest": largest, "peak_mb": peak})
        print(f"{n:6d} evaluations (demo --models {models}), cold build (empty cache, new output folder, as in "
              f"CI): {summary['cpu']:.1f} CPU s ({wall:.1f} s wall); site {total / 1e6:.1f} MB in {count} files, "
              f"largest {largest_path} {largest / 1e6:.1f} MB; peak RSS {peak} MB (largest render worker {worker} MB)",
              flush=True)
        print("  phases (wall): " + ", ".join(f"{k} {v:.1f}s" for k, v in summary["timings"].items()), flush=True)
    if len(rows) > 1:
        import math
        small, big = rows[0], rows[-1]
        growth = math.log(big["evaluations"] / small["evaluations"])
        for key, name in (("cpu", "CPU time"), ("bytes", "bytes"), ("largest", "largest file"), ("peak_mb", "peak RSS")):
            print(f"growth exponent {name:13s} {math.log(big[key] / small[key]) / growth:5.2f} "
                  f"({small['evaluations']} -> {big['evaluations']} evaluations)")
    small = rows[0]
    data, site, cache = (work / f"data-{small['models']}", work / f"site-{small['models']}",
                         work / f"cache-{small['models']}")
    floor = io_floor(data, site, work)
    print(f"I/O floor of the {small['evaluations']}-evaluation build: {floor:.2f} s; cold build / floor = "
          f"{small['wall'] / floor:.1f} by wall time, {small['cpu'] / floor:.1f} by the build's CPU seconds", flush=True)
    scan_cpu, scan_wall, trials = decode_scan(data)
    print(f"  beside it, the floor with every trial decoded once (plus one DuckDB scan of every value of the "
          f"{trials:,} trials: {scan_cpu:.2f} CPU s, {scan_wall:.2f} s wall): {floor + scan_cpu:.2f} s; cold build / "
          f"that floor = {small['cpu'] / (floor + scan_cpu):.1f} by the build's CPU seconds", flush=True)
    again, wall_same, _ = measured_build(data, site, cache)
    print(f"nothing changed: {again['cpu']:.2f} CPU s ({wall_same:.2f} s wall; "
          f"{'up to date' if not again['fresh'] else 'rebuilt'})", flush=True)
    pull_request_builds(data, cache, work, small)
    one_model_rebuild(data, site, cache, work, small, args.verify)


def pull_request_builds(data: Path, cache: Path, work: Path, cold: dict) -> None:
    """The pull-request workflow's two builds sharing one restored cache: the cache of the
    last build of the base (`cache`, copied as `actions/cache` restores it), then the base
    built into a new folder and the head (the base with one model's trials changed, in its
    own checkout) built with the same cache, as the scaffolded pr-report.yml does."""
    restored, head = work / "pr-cache", work / "pr-head-data"
    for path in (restored, head, work / "pr-base-site", work / "pr-head-site"):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(cache, restored)
    shutil.copytree(data, head)
    change_one_model(head / "trials")
    base, wall_base, _ = measured_build(data, work / "pr-base-site", restored)
    head_run, wall_head, _ = measured_build(head, work / "pr-head-site", restored)
    cpu = base["cpu"] + head_run["cpu"]
    print(f"pull request, one restored cache: base {base['cpu']:.1f} CPU s ({wall_base:.1f} s wall), head "
          f"{head_run['cpu']:.1f} CPU s ({wall_head:.1f} s wall); together {cpu:.1f} CPU s, "
          f"{cpu / (2 * cold['cpu']):.2f} of two cold builds ({2 * cold['cpu']:.1f} CPU s)", flush=True)
    for path in (restored, head, work / "pr-base-site", work / "pr-head-site"):
        shutil.rmtree(path, ignore_errors=True)


def one_model_rebuild(data: Path, site: Path, cache: Path, work: Path, clean: dict | None = None,
                      verify: bool = True) -> None:
    """Change one model's trials and rebuild: CPU and wall time against the `clean` build
    (when given; else a clean build of the changed inputs, made right after it), files
    rewritten, and with `verify` whether the site equals a clean build byte for byte."""
    before = mtimes(site)
    time.sleep(0.05)
    changed_file = change_one_model(data / "trials")
    one, wall_one, _ = measured_build(data, site, cache)
    after = mtimes(site)
    rewritten = sum(1 for p in after if before.get(p) != after[p])
    identical = "not checked"
    if verify or clean is None:
        fresh = work / "clean"
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.rmtree(work / "clean-cache", ignore_errors=True)
        rebuilt, wall_clean, _ = measured_build(data, fresh, work / "clean-cache")
        identical = str(tree_digest(site) == tree_digest(fresh))
        clean = clean or {"cpu": rebuilt["cpu"], "wall": wall_clean}
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.rmtree(work / "clean-cache", ignore_errors=True)
    print(f"one model changed ({changed_file.name}): {one['cpu']:.1f} CPU s ({wall_one:.1f} s wall), "
          f"{one['cpu'] / clean['cpu']:.2f} of a clean build's CPU ({clean['cpu']:.1f} s; by wall "
          f"{wall_one / clean['wall']:.2f}); rewrote {rewritten} of {len(after)} files (build says {one['changed']}), "
          f"equals a clean build: {identical}", flush=True)
    print("  phases (wall): " + ", ".join(f"{k} {v:.1f}s" for k, v in one["timings"].items()), flush=True)


def plain_jinja_render(site: Path, page_size: int = 100) -> dict:
    """Plain Jinja2 baseline: one page per model, showing what our model page shows, straight
    from the JSON data files with one template (no page model, macros or URL helpers).

    Per model: header and navigation, score ± margin [low, high], band label and wording,
    rank, the per-task table with all six estimators, tiers, the tied-with list, neighbour
    win rates (`pairwise.json`) and the model's reported-result rows with their signals
    (`signals.json` triples of the model key, at most `page_size`). Parsing the files and
    grouping triples by model happen before the clock starts; the timed loop is template
    rendering plus UTF-8 encoding, as in our render phase.
    """
    import tomllib

    import jinja2

    data = site / "data"
    board = json.loads((data / "leaderboard.json").read_text(encoding="utf-8"))
    pairwise = json.loads((data / "pairwise.json").read_text(encoding="utf-8"))
    signals = json.loads((data / "signals.json").read_text(encoding="utf-8"))
    bands_toml = tomllib.loads((ROOT / "content" / "bands.toml").read_text(encoding="utf-8"))
    bands = {b["key"]: b for b in bands_toml.get("reasonscore", [])}
    by_model: dict[str, list] = {}
    for t in signals["triples"]:
        by_model.setdefault(t["model"].rsplit("/", 1)[-1], []).append(t)
    by_id = {m["id"]: m for m in board["models"]}
    neighbours = pairwise.get("neighbours", {})
    nav = [("Leaderboard", "index.html"), ("Pairwise", "pairwise.html"), ("Signals", "signals.html"),
           ("Methodology", "methodology.html"), ("About", "about.html")]
    env = jinja2.Environment(autoescape=True)
    template = env.from_string(PLAIN_TEMPLATE)
    modes = ["E_I", "E_P", "E_O", "C_I", "C_P", "C_O"]
    # Our renderer pauses the cyclic GC while it makes pages; so does the baseline, so the
    # parsed JSON's large heap costs neither side anything.
    gc.disable()
    start = time.perf_counter()
    pages = [template.render(m=m, modes=modes, site_title="ReasonBoard", nav=nav, bands=bands, by_id=by_id,
                             neighbours=neighbours.get(m["id"], ()),
                             reported=by_model.get(m["model"], ())[:page_size]).encode("utf-8")
             for m in board["models"]]
    seconds = time.perf_counter() - start
    gc.enable()
    return {"seconds": seconds, "pages": len(pages), "bytes": sum(map(len, pages))}


def child_json(snippet: str, *args: object) -> dict:
    """Run a snippet in a fresh Python process from the repository root; its last stdout line is JSON."""
    proc = subprocess.run([sys.executable, "-c", snippet, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"benchmark step failed:\n{proc.stderr}")
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


def throughput(data: Path, site: Path, work: Path, rounds: int) -> tuple[list[dict], list[dict]]:
    """Ours and plain Jinja2, `rounds` times each, alternating, each in a fresh process."""
    dump = work / "results.pickle"
    child_json(DUMP_SNIPPET, data, work / "dump-site", work / "cache", dump)
    ours, plain = [], []
    for _ in range(rounds):
        ours.append(child_json(OURS_SNIPPET, dump, work / "cache"))
        plain.append(child_json(PLAIN_SNIPPET, site))
    dump.unlink()
    return ours, plain


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def tree_digest(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def mtimes(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


def change_one_model(trials_dir: Path) -> Path:
    """Flip a quarter of the first point's trials of one evaluation (correct <-> not, where
    not truncated): always a real change of its points, written back as its trials file (a data
    folder without trials: `change_one_points_file`)."""
    import duckdb
    from reasonboard.store.pointsdb import sql_string

    files = sorted(trials_dir.glob("*.parquet"))
    if not files:
        return change_one_points_file(trials_dir.parent / "points")
    target = files[len(files) // 2]
    temporary = target.with_name(target.name + ".tmp")
    con = duckdb.connect()
    first = con.execute("SELECT base_task, params FROM read_parquet(?) LIMIT 1", [str(target)]).fetchone()
    con.execute(
        f"""COPY (SELECT * EXCLUDE (flip) REPLACE (CASE WHEN flip THEN 1.0 - credit ELSE credit END AS credit,
                                                  CASE WHEN flip THEN NOT correct ELSE correct END AS correct)
                 FROM (SELECT *, base_task = ? AND params = ? AND NOT truncated AND credit IN (0, 1)
                                 AND hash(sample_id, epoch) % 4 = 0 AS flip FROM read_parquet(?)))
           TO {sql_string(temporary)} (FORMAT parquet, COMPRESSION zstd)""", [first[0], first[1], str(target)])
    con.close()
    temporary.replace(target)
    return target


def change_one_points_file(points_dir: Path) -> Path:
    """A data folder without trials (points files only): one more correct trial in the first
    point of one model's points file with a trial not truncated (one fewer where all of
    those were correct), written back."""
    files = sorted(points_dir.glob("*.csv"))
    target = files[len(files) // 2]
    with target.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    first = next(r for r in rows if int(r["total"]) > int(r["truncated"]))
    correct, completed = int(first["correct"]), int(first["total"]) - int(first["truncated"])
    first["correct"] = str(correct + 1 if correct < completed else correct - 1)
    with target.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--eee", type=Path, default=DEFAULT_EEE)
    parser.add_argument("--cards", type=Path, default=DEFAULT_CARDS)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="throughput measurements per side (median)")
    parser.add_argument("--scale", action="store_true", help="the scale figures instead (see the docstring)")
    parser.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",")], default=[2000],
                        help="demo --models sizes for --scale, comma-separated (default 2000)")
    parser.add_argument("--data", type=Path, help="--scale: copy this fixture (a data folder) instead of making one")
    parser.add_argument("--verify", action="store_true",
                        help="--scale: compare the one-model rebuild with a clean build (one more build)")
    args = parser.parse_args()
    if not args.eee.is_dir():
        sys.exit(f"EEE corpus not found at {args.eee} (pass --eee)")

    work = args.keep or Path(tempfile.mkdtemp(prefix="reasonboard-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    data, site, cache = work / "data", work / "site", work / "cache"
    for path in (data, site, cache, work / "clean", work / "clean-cache", work / "dump-site"):
        shutil.rmtree(path, ignore_errors=True)
    if args.scale:
        print(f"cores: {os.cpu_count()}, sizes: {args.sizes}, work dir: {work}", flush=True)
        scale(args, work)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return
    print(f"cores: {os.cpu_count()}, models: {args.models}, work dir: {work}")

    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from reasonboard.cli import main; main()", "demo", "--models", str(args.models), "--out", str(data)],
                   cwd=ROOT, check=True, capture_output=True)
    shutil.copytree(args.eee, data / "eee")
    shutil.copytree(args.cards, data / "cards")
    print(f"fixture: {time.perf_counter() - t:.1f} s "
          f"({sum(1 for _ in (data / 'eee').rglob('*.json'))} EEE files, {len(list((data / 'cards').glob('*.json')))} cards)")

    full, wall, peak = measured_build(data, site, cache, args.profile)
    render = full["timings"].get("render and write", full["timings"].get("render", float("nan")))
    site_timings = full.get("site_timings", {})
    page_seconds = site_timings.get("page model", 0.0) + site_timings.get("templates", 0.0)
    in_build = full["pages"] / page_seconds if page_seconds else float("nan")
    print(f"full build      {wall:6.1f} s wall, {full['seconds']:.1f} s in build, peak {peak} MB "
          f"(targets: <= 60 s, < 2048 MB)")
    print("  phases: " + ", ".join(f"{k} {v:.2f}s" for k, v in full["timings"].items()))
    print("  render phase: " + ", ".join(f"{k} {v:.2f}s" for k, v in site_timings.items())
          + f" (the rest is data files); {full['pages'] / render:.1f} pages/s over the whole phase")
    print(f"  pages {full['pages']}, files {full['files']}")
    print(f"  page model + templates inside the build: {page_seconds:.2f} s, {in_build:.1f} pages/s")

    ours, plain = throughput(data, site, work, args.rounds)
    for name, runs in (("ours", ours), ("plain Jinja2", plain)):
        print(f"  {name:12s} " + ", ".join(f"{r['seconds']:.2f}" for r in runs) + " s"
              f" for {runs[0]['pages']} pages of {runs[0]['bytes'] / runs[0]['pages'] / 1000:.0f} kB on average")
    ours_rate = ours[0]["pages"] / median([r["seconds"] for r in ours])
    plain_rate = plain[0]["pages"] / median([r["seconds"] for r in plain])
    print(f"page throughput ours {ours_rate:7.1f} pages/s (page model + templates, every page incl. charts)"
          f" | plain Jinja2 {plain_rate:7.1f} pages/s (model pages) | ratio {ours_rate / plain_rate:.2f}"
          f" (target >= 0.5; medians of {args.rounds} alternating runs)")

    again, wall_again, _ = measured_build(data, site, cache)
    print(f"unchanged rebuild {wall_again:5.2f} s wall ({again['seconds']:.2f} s in build, "
          f"{'nothing to do' if not again['fresh'] else 'rebuilt'}; target <= 2 s)")

    one_model_rebuild(data, site, cache, work)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

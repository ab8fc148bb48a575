"""Incremental builds: unchanged inputs do nothing; a changed points file rewrites
only the files whose content changed, and the result equals a clean build byte for byte."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest
from helpers_points import write_demo_points as write_demo
from reasonboard.build import BuildOptions, run_build

ROOT = Path(__file__).resolve().parent.parent


def snapshot(site: Path) -> dict[str, tuple[bytes, tuple[int, int]]]:
    """Each file's bytes and identity: its modification time and inode. A file the writer
    rewrites is a new file (staged, then moved into place) whatever the clock's resolution;
    a file it keeps is the previous build's, linked."""
    return {p.relative_to(site).as_posix(): (p.read_bytes(), (p.stat().st_mtime_ns, p.stat().st_ino))
            for p in sorted(site.rglob("*")) if p.is_file()}


def build(data: Path, out: Path, cache: Path):
    return run_build(BuildOptions(data_dir=data, out_dir=out, cache_dir=cache, content_dir=ROOT / "content"))


def bump_one_model(points: Path) -> None:
    """Make one model clearly better on one point: more correct answers, same trials."""
    rows = list(csv.DictReader(io.StringIO(points.read_text(encoding="utf-8"))))
    row = rows[0]
    n_u = int(row["total"]) - int(row["truncated"])
    row["correct"] = str(min(n_u, int(row["correct"]) + max(1, n_u // 4)))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    points.write_text(out.getvalue(), encoding="utf-8")


#: Real Every Eval Ever records from the default data (credited in data/README.md).
RECORDS = sorted((ROOT / "data" / "eee" / "helm_lite").rglob("*.json"))[:3]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """Demo points and two reported records, so both parts of the PointsDB hold data."""
    data = tmp_path_factory.mktemp("data")
    write_demo(data, models=6, seed=3)
    (data / "eee").mkdir()
    for record in RECORDS[:2]:
        shutil.copy(record, data / "eee" / record.name)
    return data


def test_unchanged_inputs_touch_nothing(demo, tmp_path):
    out, cache = tmp_path / "site", tmp_path / "cache"
    first = build(demo, out, cache)
    assert first.fresh and first.changed == first.files
    before = snapshot(out)
    again = build(demo, out, cache)
    assert not again.fresh and "up to date" in again.render()
    assert snapshot(out) == before


def test_an_up_to_date_build_still_lists_skipped_files_and_warnings(demo, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    (data / "eee" / "broken.json").write_text("{not json", encoding="utf-8")
    first_points = sorted((data / "points").glob("*.csv"))[0]
    rows = first_points.read_text(encoding="utf-8").splitlines()
    (data / "points" / "zz-repeat.csv").write_text("\n".join(rows[:2]) + "\n", encoding="utf-8")  # a duplicate row
    out, cache = tmp_path / "site", tmp_path / "cache"
    first = build(data, out, cache)
    assert first.skipped and first.warnings
    again = build(data, out, cache)
    assert not again.fresh
    text = again.render()
    assert "up to date" in text
    assert "skipped 1 malformed file(s)" in text and "broken.json" in text
    assert all(f"warning: {w}" in text for w in first.warnings)


def test_a_touched_output_file_is_rebuilt(demo, tmp_path):
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(demo, out, cache)
    original = (out / "index.html").read_bytes()
    (out / "index.html").write_text("vandalised", encoding="utf-8")
    again = build(demo, out, cache)
    assert again.fresh and (out / "index.html").read_bytes() == original
    assert (again.rendered, again.kept) == (1, again.pages - 1)  # the other pages' files are as they were


def test_changing_one_model_rewrites_only_what_changed(demo, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    before = snapshot(out)

    target = sorted((data / "points").glob("*.csv"))[0]
    bump_one_model(target)
    result = build(data, out, cache)
    assert result.ingested == ("points",)  # the reported results came from the cache
    after = snapshot(out)
    assert_equals_clean_build(data, out, tmp_path)

    changed = {p for p in after if p not in before or after[p][0] != before[p][0]}
    rewritten = {p for p in after if p not in before or after[p][1] != before[p][1]}
    assert rewritten == changed, "a file was rewritten with identical bytes, or changed in place"
    assert "data/leaderboard.json" in changed
    assert 0 < len(changed) < len(after), "one model's change should leave some pages untouched"
    assert result.changed == len(changed)
    # Only the pages that show the model's values render again (site/reuse.py); the rest are
    # kept, and equal a clean build's (above).
    assert result.rendered + result.kept == result.pages
    assert 0 < result.rendered < result.pages // 2, (result.rendered, result.pages)
    # The pages of the reported benchmarks do not depend on the demo points at all.
    untouched = [p for p in after if p.startswith("benchmarks/") and p not in changed]
    assert untouched or not any(p.startswith("benchmarks/") for p in after)


@pytest.mark.parametrize("damage", ["not json", "foreign shapes"])
def test_a_damaged_state_renders_every_page(demo, tmp_path, damage):
    """A build state that cannot be read, or whose entries are not the shape it writes,
    vouches for no page: every page renders, and the site equals a clean build."""
    from reasonboard.buildstate import state_path

    data = tmp_path / "data"
    shutil.copytree(demo, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    state = state_path(cache, out)
    if damage == "not json":
        state.write_bytes(b"\x80{not json")
    else:
        raw = json.loads(state.read_text(encoding="utf-8"))
        raw["files"] = {path: [str(size), mtime, key, "extra"] for path, (size, mtime, *key) in raw["files"].items()}
        state.write_text(json.dumps(raw), encoding="utf-8")
    bump_one_model(sorted((data / "points").glob("*.csv"))[0])
    result = build(data, out, cache)
    assert (result.rendered, result.kept) == (result.pages, 0)
    assert_equals_clean_build(data, out, tmp_path)


def test_a_new_reported_record_equals_a_clean_build(demo, tmp_path):
    """Only the reported part of the PointsDB is ingested again; the points are reused."""
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    first = build(data, out, cache)
    shutil.copy(RECORDS[2], data / "eee" / RECORDS[2].name)
    result = build(data, out, cache)
    assert result.ingested == ("reported",)
    assert result.results > first.results
    assert_equals_clean_build(data, out, tmp_path)


def test_points_files_added_changed_and_removed_equal_a_clean_build(demo, tmp_path):
    """The points part is updated by file (store/ingest.py): each step re-reads only what
    changed, and the site equals a clean build of the same inputs."""
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    files = sorted((data / "points").glob("*.csv"))
    # A copy of one model's file under another model's name: a new evaluation.
    text = files[0].read_text(encoding="utf-8")
    model = text.splitlines()[1].split(",")[0]
    (data / "points" / "zz-new.csv").write_text(text.replace(model, "zz-new-model"), encoding="utf-8")
    bump_one_model(files[1])
    removed = files[2].read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    files[2].unlink()
    result = build(data, out, cache)
    board = (out / "data" / "leaderboard.csv").read_text(encoding="utf-8")
    assert result.ingested == ("points",) and "zz-new-model" in board and removed not in board
    assert_equals_clean_build(data, out, tmp_path)


def assert_equals_clean_build(data: Path, out: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    build(data, clean, tmp_path / "clean-cache")
    assert {p: b for p, (b, _) in snapshot(out).items()} == {p: b for p, (b, _) in snapshot(clean).items()}


def test_state_is_per_output_directory(demo, tmp_path):
    cache = tmp_path / "cache"
    build(demo, tmp_path / "a", cache)
    second = build(demo, tmp_path / "b", cache)
    assert second.fresh and (tmp_path / "b" / "index.html").is_file()
    assert not build(demo, tmp_path / "a", cache).fresh


def test_a_failed_build_keeps_the_old_site_and_state(demo, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    before = snapshot(out)
    bad = data / "points" / "zz-bad.csv"
    bad.write_text("model,template,sampler,base_task,params,total,correct,truncated,guess,tokens\n"
                   "m,t,s,x,{},10,11,0,0,0\n", encoding="utf-8")
    from reasonboard.errors import InputError

    with pytest.raises(InputError) as err:
        build(data, out, cache)
    assert "zz-bad.csv, line 2:" in err.value.message and err.value.line == 2
    assert snapshot(out) == before
    os.remove(bad)
    assert not build(data, out, cache).fresh  # back to the inputs of the site on disk


@pytest.mark.parametrize("parent_works", [True, False])
def test_two_render_workers_write_the_bytes_of_one(demo, tmp_path, monkeypatch, parent_works):
    """Pages and data files made by a forked worker (beside this process, or alone) are the
    bytes one process makes."""
    import multiprocessing.context

    from reasonboard.site import workers

    monkeypatch.setattr(workers, "CHUNK", 2)  # the small demo has too few pages to fork otherwise
    monkeypatch.setenv("REASONBOARD_WORKERS", "1")
    build(demo, tmp_path / "one", tmp_path / "cache-one")
    monkeypatch.setenv("REASONBOARD_WORKERS", "2")
    monkeypatch.setattr(workers.PageJob, "parent_works", parent_works)
    forked = []
    real = multiprocessing.context.ForkProcess.start
    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start",
                        lambda process: forked.append(process._target) or real(process))
    build(demo, tmp_path / "two", tmp_path / "cache-two")
    assert forked.count(workers._work) == 1
    one = {p: body for p, (body, _) in snapshot(tmp_path / "one").items()}
    two = {p: body for p, (body, _) in snapshot(tmp_path / "two").items()}
    assert sorted(one) == sorted(two)
    assert [p for p in one if one[p] != two[p]] == []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
def test_the_render_pool_forks_a_process_with_one_thread(demo, tmp_path, monkeypatch):
    """A thread running at the fork (DuckDB keeps a pool of them per open database) would be
    copied stopped, holding its locks, into every worker (Python 3.12+ warns of deadlocks):
    the build closes every connection before the pages are made, so it forks with the
    threads it started with (one, in a build's own process)."""
    from reasonboard.site import workers

    monkeypatch.setattr(workers, "CHUNK", 2)
    monkeypatch.setenv("REASONBOARD_WORKERS", "2")
    threads = []
    real = os.fork
    count = lambda: len(list(Path("/proc/self/task").iterdir()))
    monkeypatch.setattr(os, "fork", lambda: threads.append(count()) or real())
    before = count()
    build(demo, tmp_path / "site", tmp_path / "cache")
    assert threads == [before]


@pytest.mark.parametrize("where", ["page", "data files"])
def test_a_failure_in_a_forked_worker_leaves_the_previous_site_untouched(demo, tmp_path, monkeypatch, where):
    """Workers stage their files themselves; one failing (a page, or the data files made
    beside them) must still leave the previous site exactly as it was, no staging directory behind, and no process running."""
    from reasonboard import build as build_module
    from reasonboard.site import render, workers

    out, cache = tmp_path / "site", tmp_path / "cache"
    build(demo, out, cache)
    before = snapshot(out)
    monkeypatch.setattr(workers, "CHUNK", 2)
    monkeypatch.setenv("REASONBOARD_WORKERS", "2")
    monkeypatch.setattr(workers.PageJob, "parent_works", False)  # every job in the worker
    parent = os.getpid()
    if where == "page":
        real = render.render_page

        def failing(env, inputs):
            if inputs.page.path == "pairwise.html" and os.getpid() != parent:  # only in a worker
                raise RuntimeError("template failed in a worker")
            return real(env, inputs)

        monkeypatch.setattr(render, "render_page", failing)
    else:
        def failing_data(*args):
            if os.getpid() != parent:
                raise RuntimeError("data files failed in a worker")
            return real_data(*args)

        real_data = build_module.data_files

        monkeypatch.setattr(build_module, "data_files", failing_data)
    points = sorted((demo / "points").glob("*.csv"))[0]
    text = points.read_text(encoding="utf-8")
    bump_one_model(points)  # an input change, so the build does not stop at "up to date"
    try:
        with pytest.raises(RuntimeError, match="failed in a worker"):
            build(demo, out, cache)
    finally:
        points.write_text(text, encoding="utf-8")  # the fixture is the module's
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "site"]
    assert multiprocessing.active_children() == []


def test_a_deferred_page_made_unlike_its_plan_is_an_error():
    from reasonboard.site.views.base import Deferred, Page

    page = Page(path="a.html", title="A", template="content.html", simulated=False, description="")
    assert Deferred("a.html", "content.html", lambda: page).page() is page
    with pytest.raises(RuntimeError, match=r"b\.html"):
        Deferred("b.html", "content.html", lambda: page).page()
    with pytest.raises(RuntimeError, match="charts"):
        Deferred("a.html", "content.html", lambda: page, charts=True).page()


def test_rendering_a_page_leaves_no_reference_cycle(default_build):
    """A template that defines a macro, or imports one `with context`, makes each render a
    reference cycle holding its page, which only a cyclic collection frees, walking the
    build's large heap each time. Every page kind renders cycle-free."""
    import gc
    from dataclasses import replace

    from reasonboard.site.model import build_page_model
    from reasonboard.site.render import Assets, PageInputs, environment, load_content, render_page

    results = default_build.results
    model = build_page_model(results, load_content(default_build.content_dir))
    env = environment(ROOT / "templates")
    site = replace(model, pages=())
    assets = Assets(css="a.css", js="a.js", charts="c.js", vega="v.js", compare="p.js")
    first = {}
    for page in model.pages:
        first.setdefault(page.template, PageInputs(page, site, assets, results.signals is not None, ""))
    for inputs in first.values():
        render_page(env, inputs)  # templates compiled and imported modules cached
    gc.collect()
    cyclic = {}
    was = gc.isenabled()
    gc.disable()
    try:
        for template, inputs in sorted(first.items()):
            render_page(env, inputs)
            cyclic[template] = gc.collect()
    finally:
        if was:
            gc.enable()
    assert {t: n for t, n in cyclic.items() if n} == {}
    assert len(cyclic) >= 9  # every page kind of the default build was rendered


def test_bad_input_fails_the_build_with_its_line_and_leaves_no_process(demo, tmp_path, monkeypatch):
    """A points file the store refuses fails the build with the file, line and problem,
    before any worker is forked, and writes nothing."""
    from reasonboard.errors import InputError

    monkeypatch.setenv("REASONBOARD_WORKERS", "2")
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    bad = data / "points" / "zz-bad.csv"
    bad.write_text("model,template,sampler,base_task,params,total,correct,truncated,guess,tokens\n"
                   'm,t,s,task,"{}",0,0,0,0,1\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"zz-bad\.csv, line 2: total must be at least 1"):
        build(data, tmp_path / "site", tmp_path / "cache")
    assert multiprocessing.active_children() == []
    assert not (tmp_path / "site").exists()


def test_a_relabelled_model_and_an_edited_card_equal_a_clean_build(tmp_path):
    """A model's label shows on its neighbours' pages and its group's, and a card's text on
    its benchmark's pages: a rebuild after both changes equals a clean build. The default
    data has both (evals.json labels, real cards)."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    evals[3]["label"] = "A Renamed Model"
    (data / "evals.json").write_text(json.dumps(evals, indent=2), encoding="utf-8")
    card = sorted((data / "cards").glob("*.json"))[0]
    document = json.loads(card.read_text(encoding="utf-8"))
    document["benchmark_card"]["benchmark_details"]["overview"] = "An overview edited for this test."
    card.write_text(json.dumps(document), encoding="utf-8")
    result = build(data, out, cache)
    assert result.changed > 1
    assert b"A Renamed Model" in (out / "data" / "leaderboard.json").read_bytes()
    assert_equals_clean_build(data, out, tmp_path)


def test_models_moving_between_index_pages_equal_a_clean_build(demo, tmp_path):
    """A model page links to the index page holding its row: when a change moves rows
    across index pages (two rows a page here), a rebuild must not keep the old link."""
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    config = tmp_path / "site.toml"
    config.write_text("page_size = 2\n", encoding="utf-8")

    def build_with(out: Path, cache: Path):
        return run_build(BuildOptions(data_dir=data, out_dir=out, cache_dir=cache, content_dir=ROOT / "content",
                                      config_path=config))

    out, cache = tmp_path / "site", tmp_path / "cache"
    first = build_with(out, cache)
    board = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))["models"]
    last = board[-1]["model"]
    for path in (data / "points").glob("*.csv"):
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
        if rows[0]["model"] == last:  # every answer right: from last place to the top
            for row in rows:
                row["correct"] = str(int(row["total"]) - int(row["truncated"]))
            text = io.StringIO()
            writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            path.write_text(text.getvalue(), encoding="utf-8")
    build_with(out, cache)
    moved = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))["models"]
    assert [m["id"] for m in moved] != [m["id"] for m in board] and first.pages > 6
    clean = tmp_path / "clean"
    build_with(clean, tmp_path / "clean-cache")
    assert {p: b for p, (b, _) in snapshot(out).items()} == {p: b for p, (b, _) in snapshot(clean).items()}


@pytest.fixture(scope="module")
def demo_trials(tmp_path_factory) -> Path:
    """The demo's trials files: each evaluation publishes its per-sample outcomes."""
    from reasonboard.demo import write_demo as write_trials

    data = tmp_path_factory.mktemp("trials-data")
    write_trials(data, models=4, seed=5)
    return data


def flip_outcomes(path: Path) -> None:
    """Flip every fourth trial's outcome (correct <-> not, where not truncated) in one trials file."""
    import duckdb
    from reasonboard.store.pointsdb import sql_string

    temporary = path.with_name(path.name + ".tmp")
    with duckdb.connect() as con:
        con.execute(f"""COPY (SELECT * EXCLUDE (flip) REPLACE (CASE WHEN flip THEN NOT correct ELSE correct END AS correct,
                                                                CASE WHEN flip THEN 1.0 - credit ELSE credit END AS credit)
                              FROM (SELECT *, NOT truncated AND credit IN (0, 1) AND hash(sample_id, epoch) % 4 = 0
                                           AS flip FROM read_parquet(?)))
                        TO {sql_string(temporary)} (FORMAT parquet)""", [str(path)])
    temporary.replace(path)


def test_only_the_changed_trials_are_published_again(demo_trials, tmp_path, monkeypatch):
    """A published samples file is encoded again only when its trials file changed (its key,
    sampleoutputs.py, is a digest of the trials' bytes and the encoder); the others are the
    previous build's files, and the site equals a clean build byte for byte. A samples file
    touched since is encoded again."""
    from reasonboard import sampleoutputs

    monkeypatch.setenv("REASONBOARD_WORKERS", "1")  # the encodings are counted in this process
    encoded: list[str] = []
    real = sampleoutputs.copy_to_parquet
    monkeypatch.setattr(sampleoutputs, "copy_to_parquet",
                        lambda con, query, params, *rest: encoded.append(params[0][0]) or real(con, query, params, *rest))
    data = tmp_path / "data"
    shutil.copytree(demo_trials, data)
    out, cache = tmp_path / "site", tmp_path / "cache"
    build(data, out, cache)
    published = sorted((out / "data" / "samples").rglob("*.parquet"))
    trials = sorted((data / "trials").glob("*.parquet"))
    assert len(encoded) == len(published) == len(trials) > 2
    encoded.clear()

    changed = trials[1]
    flip_outcomes(changed)
    result = build(data, out, cache)
    assert result.fresh
    assert encoded == [str(changed)]
    assert_equals_clean_build(data, out, tmp_path)

    encoded.clear()
    touched = published[0]
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 1_000_000))
    flip_outcomes(changed)  # an input change, so the build does not stop at "up to date"
    build(data, out, cache)
    assert len(encoded) == 2 and str(changed) in encoded

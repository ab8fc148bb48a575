"""The signals' memo between builds (signals/memo.py, issue 16): signals made partly from the
memo equal signals computed afresh, whatever changed; the memo is really read (a wrong entry
shows, so these tests could fail); other settings, a damaged shard, or another salt make
the keys computed again; the corpus rollups, now counted in Python over every triple, equal
a plain reading of signals.json; and a page's digest does not depend on which objects the
signals share (a build from the memo keeps the pages a fresh build made)."""

from __future__ import annotations

import dataclasses
import pickle
from collections import Counter
from pathlib import Path

import pytest
from reasonboard.build import BuildOptions, load_settings, own_results
from reasonboard.results import BuildResults
from reasonboard.signals import compute as compute_module
from reasonboard.signals.compute import compute_signals
from reasonboard.signals.memo import SHARDS, SignalsMemo, shard_of
from reasonboard.site.model import plan_page_model
from reasonboard.site.render import load_content
from reasonboard.site.reuse import page_digest
from reasonboard.site.views.base import made
from reasonboard.stats.leaderboard import rank_board, read_board, with_curves
from reasonboard.store.cache import open_store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The default data's store (demo points and real reported records), its own rows."""
    cache = tmp_path_factory.mktemp("cache")
    project, config, bands = load_settings(BuildOptions(data_dir=ROOT / "data", cache_dir=cache,
                                                        out_dir=cache / "site"))
    db, _ = open_store(project.data_dir, cache, None, config, False)
    inputs = read_board(db, config)
    config = config.with_demo_defaults()
    yield db, config, own_results(inputs, config), (project, bands, inputs)
    db.close()


def computed(monkeypatch) -> list[str]:
    """The model keys whose rows each later `compute_signals` computes (not from the memo)."""
    seen: list[str] = []
    real = compute_module._by_model_key

    def spy(rows, triples, digests):
        found = real(rows, triples, digests)
        seen.extend(found)
        return found

    monkeypatch.setattr(compute_module, "_by_model_key", spy)
    return seen


def test_from_the_memo_equals_computed_afresh(world, tmp_path, monkeypatch):
    db, config, own, _ = world
    fresh = compute_signals(db, config, own)
    memo = SignalsMemo(tmp_path / "memo")
    assert compute_signals(db, config, own, memo) == fresh
    memo.save()
    assert len(list((tmp_path / "memo").glob("*.pickle"))) == SHARDS
    seen = computed(monkeypatch)
    again = SignalsMemo(tmp_path / "memo")
    assert compute_signals(db, config, own, again) == fresh
    assert seen == [] and not again.touched, "nothing changed: every key from the memo"


def test_one_changed_model_is_the_only_key_computed(world, tmp_path, monkeypatch):
    db, config, own, _ = world
    memo = SignalsMemo(tmp_path / "memo")
    compute_signals(db, config, own, memo)
    memo.save()
    target = own[0].evaluation_id
    changed = [dataclasses.replace(o, score=(o.score or 0) / 2 + 0.01) if o.evaluation_id == target else o
               for o in own]
    gone = [o for o in changed if o.evaluation_id != own[-1].evaluation_id]  # after `changed`
    for rows in (changed, gone):
        expected = compute_signals(db, config, rows)
        seen = computed(monkeypatch)
        memo = SignalsMemo(tmp_path / "memo")
        assert compute_signals(db, config, rows, memo) == expected
        model = (own[-1] if rows is gone else own[0]).model
        key = expected.model_key_for(model)
        # Gone: the key goes too, or (another evaluation of the model left) is computed again.
        assert set(seen) <= {key} if rows is gone else seen == [key], "only the changed model's key"
        assert memo.touched
        memo.save()
        monkeypatch.undo()


def test_a_memo_entry_is_used_as_it_is(world, tmp_path):
    """A shard edited behind the build's back shows in its signals: the memo is trusted,
    never recomputed, which is why its salt and digests must cover every input."""
    db, config, own, _ = world
    memo = SignalsMemo(tmp_path / "memo")
    fresh = compute_signals(db, config, own, memo)
    memo.save()
    triple = fresh.triples[0]
    path = tmp_path / "memo" / f"{shard_of(triple.model):02d}.pickle"
    salt, entries = pickle.loads(path.read_bytes())
    digest, rows, triples = entries[triple.model]
    entries[triple.model] = (digest, rows, (dataclasses.replace(triples[0], reports=99), *triples[1:]))
    path.write_bytes(pickle.dumps((salt, entries)))
    found = compute_signals(db, config, own, SignalsMemo(tmp_path / "memo"))
    assert found.triple(*triple.key).reports == 99


def test_other_settings_or_a_damaged_shard_are_computed_again(world, tmp_path, monkeypatch):
    db, config, own, _ = world
    memo = SignalsMemo(tmp_path / "memo")
    compute_signals(db, config, own, memo)
    memo.save()
    (tmp_path / "memo" / "03.pickle").write_bytes(b"not a pickle")
    expected = compute_signals(db, config, own)
    seen = computed(monkeypatch)
    memo = SignalsMemo(tmp_path / "memo")
    assert compute_signals(db, config, own, memo) == expected
    assert seen and all(shard_of(k) == 3 for k in seen) and 3 in memo.touched
    memo.save()
    other = dataclasses.replace(config, populated_rule="presence")
    expected = compute_signals(db, other, own)
    seen.clear()
    memo = SignalsMemo(tmp_path / "memo")
    assert compute_signals(db, other, own, memo) == expected
    assert len(memo.touched) == SHARDS and sorted(seen) == sorted(memo.entries)


def test_corpus_rollups_equal_a_plain_reading_of_the_triples(world):
    db, config, own, _ = world
    document = compute_signals(db, config, own).to_json()
    triples, corpus = document["triples"], document["corpus"]
    n = len(triples)
    agentic = [t for t in triples if t["reproducibility"]["agentic"]]
    assert corpus["triples"] == n and n > 1000
    assert corpus["reproducibility_gap_rate"] == round(sum(t["reproducibility"]["gap"] for t in triples) / n, 6)
    for field in ("temperature", "max_tokens"):
        expected = sum(field in t["reproducibility"]["missing"] for t in triples) / n
        assert corpus["field_missingness"][field] == round(expected, 6)
    for field in ("harness", "eval_plan", "eval_limits"):
        expected = (sum(field in t["reproducibility"]["missing"] for t in agentic) / len(agentic)) if agentic else None
        assert corpus["field_missingness"][field] == (round(expected, 6) if expected is not None else None)
    assert corpus["provenance"]["first_party_only"] == sum(t["provenance"]["first_party_only"] for t in triples)
    assert corpus["provenance"]["multi_party"] == sum(t["provenance"]["multi_party"] for t in triples)
    compared = [t for t in triples if t["reports"] >= 2]
    checks = corpus["comparability"]
    assert checks["compared"] == len(compared)
    for kind in ("variant", "cross_party"):
        flags = Counter(t["comparability"][kind]["flag"] for t in triples)
        assert checks[kind]["flagged"] == flags[True] and checks[kind]["within"] == flags[False]
        assert checks[kind]["not_applicable"] == len(compared) - flags[True] - flags[False]
    both = [(t["comparability"]["variant"]["flag"], t["comparability"]["cross_party"]["flag"]) for t in triples]
    assert checks["flagged"] == sum(1 for v, c in both if v or c)
    assert checks["within"] == sum(1 for v, c in both if v is False and c is not True or c is False and v is not True)
    assert checks["flagged"] and checks["within"], "the default data must exercise both outcomes"


def test_page_digests_do_not_depend_on_how_the_signals_share_objects(world, tmp_path):
    """Signals read back from the memo share their objects otherwise than signals computed
    in one go; every page's view model, hence its digest, must come out the same, or the
    first build after a clean one would render every benchmark page again."""
    db, config, own, (project, bands, inputs) = world
    memo = SignalsMemo(tmp_path / "memo")
    fresh = compute_signals(db, config, own, memo)
    memo.save()
    kept = compute_signals(db, config, own, SignalsMemo(tmp_path / "memo"))
    assert kept == fresh
    board = with_curves(db, rank_board(inputs, config, bands), config)
    content = load_content(project.with_demo_content().content_dirs)

    def digests(signals) -> dict[str, str | None]:
        results = BuildResults(config=config, leaderboard=board.leaderboard, pairwise=board.pairwise,
                               curves=board.curves, signals=signals, evaluations=board.evaluations, bands=bands,
                               task_rankings=board.task_rankings)
        return {p.path: page_digest("", made(p)) for p in plan_page_model(results, content).pages}

    first, second = digests(fresh), digests(kept)
    assert first == second and len(first) > 50


def test_a_model_key_digest_sees_every_change_to_its_rows():
    """`model_digests` (store/sql/results.sql) decides which keys the memo may serve: a
    score turned to -0.0 (which hashes as 0.0 but prints "-0"), and two rows trading the
    value of one column (which leaves the xor of the rows' hashes alone), must move it."""
    import duckdb
    from reasonboard.store.results import statement

    def digest(rows: list[tuple]) -> str:
        con = duckdb.connect()
        con.execute("CREATE TABLE result_rows (row_id BIGINT, model_key VARCHAR, score DOUBLE, "
                    "min_score DOUBLE, max_score DOUBLE, agent_scaffold VARCHAR)")
        con.executemany("INSERT INTO result_rows VALUES (?, ?, ?, ?, ?, ?)", rows)
        [(key, found)] = con.execute(statement("model_digests")).fetchall()
        assert key == "m"
        return found

    rows = [(1, "m", 0.0, 0.0, 1.0, "react"), (2, "m", 0.5, 0.0, 1.0, None)]
    base = digest(rows)
    assert digest(list(rows)) == base
    assert digest([(1, "m", -0.0, 0.0, 1.0, "react"), rows[1]]) != base
    assert digest([(1, "m", 0.0, 0.0, 1.0, None), (2, "m", 0.5, 0.0, 1.0, "react")]) != base
    assert digest([rows[0], (2, "m", 0.5, 0.0, 1.0, "tools")]) != base

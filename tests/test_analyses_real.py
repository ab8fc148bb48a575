"""The per-sample analyses on real Inspect logs (three models on the same 100 `popularity`
samples; GPT-5 counts its reasoning tokens inside its output tokens, Gemini apart).

The logs record output tokens and output text but no token limit: compression and the
hazard (bins up to the largest power of two an output reached), no budget sweep. This test
reads the logs itself, plainly (zip, JSON, gzip), recomputes each trial's compressed size
and output tokens, and checks the analyses' quartiles and hazard counts against numpy on
those values; only each trial's outcome is taken from the ingested trials."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from reasonboard.config import SiteConfig
from reasonboard.stats.analyses import compute_analyses
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import compute_leaderboard

ingest = pytest.importorskip("reasonboard.ingest")
trialfiles = pytest.importorskip("reasonboard.store.trialfiles")
trialcodes = pytest.importorskip("reasonboard.store.trialcodes")

ROOT = Path(__file__).resolve().parent.parent
SET = Path(__file__).parent / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets" / "set"


def plain_outputs(path: Path) -> tuple[str, dict[tuple[str, int], tuple[int | None, int | None]]]:
    """The log's model, and per (sample id, epoch): output tokens (reasoning tokens added
    when reported apart and larger) and the gzip size of the completion text."""
    out = {}
    with zipfile.ZipFile(path) as z:
        model = json.loads(z.read("header.json"))["eval"]["model"]
        for name in z.namelist():
            if not name.startswith("samples/"):
                continue
            s = json.loads(z.read(name))
            usage = s["output"].get("usage") or {}
            tokens, reasoning = usage.get("output_tokens"), usage.get("reasoning_tokens")
            if tokens is not None and reasoning is not None and reasoning > tokens:
                tokens += reasoning
            text = s["output"].get("completion")
            if text is None:
                message = s["output"]["choices"][0]["message"]
                content = message["content"]
                text = content if isinstance(content, str) else "".join(
                    c.get("text", "") for c in content if c.get("type") == "text")
            size = len(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
            out[(str(s["id"]), int(s["epoch"]))] = (tokens, size)
    return model, out


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    from reasonboard.sources.evals import read_evals
    from reasonboard.sources.points import discover_point_files
    from reasonboard.store.ingest import ingest_evals, ingest_points
    from reasonboard.store.pointsdb import PointsDB

    data = tmp_path_factory.mktemp("real") / "data"
    ingest.run_ingest(ingest.IngestOptions(paths=(SET,), data_dir=data))
    db = PointsDB()
    ingest_points(db, discover_point_files(data) + trialfiles.discover_trial_files(data), data)
    ingest_evals(db, read_evals(data / "evals.json"))
    board = compute_leaderboard(db, SiteConfig(), load_bands(ROOT / "content" / "bands.toml")).leaderboard
    found = compute_analyses(db, board)
    trials = db.con.execute("SELECT model, sample_id, epoch, correct, truncated, tokens, compressed "
                            f"FROM {trialcodes.NAMED}").fetchall()
    return board, found, trials


def test_compressed_sizes_and_tokens_are_the_logs_own(analysed):
    _, _, trials = analysed
    stored = {(m, s, e): (tok, comp) for m, s, e, _, _, tok, comp in trials}
    seen = 0
    for path in sorted(SET.glob("*.eval")):
        model, plain = plain_outputs(path)
        for (sample, epoch), values in plain.items():
            key = next(k for k in stored if k[1] == sample and k[2] == epoch and model.endswith(k[0].split("/")[-1]))
            assert stored[key] == values, (model, sample)
            seen += 1
    assert seen == 300


def test_compression_and_hazard_against_numpy_on_the_plain_reading(analysed):
    board, found, trials = analysed
    assert len(found.evaluations) == 3
    for row in board.models:
        a = found.evaluations[row.evaluation.id]
        assert a.sweep is None and a.sweep_note == "the run recorded no output-token limit"
        mine = [t for t in trials if t[0] == row.evaluation.model]
        outcome = {"correct": [t for t in mine if t[3]], "truncated": [t for t in mine if t[4]],
                   "incorrect": [t for t in mine if not t[3] and not t[4]]}
        task = next(iter(a.compression))
        for o in a.compression[task].outcomes:
            rows = outcome[o.outcome]
            bits = [8 * t[6] / t[5] for t in rows if t[5]]
            assert o.trials == len(rows) and o.bits_trials == len(bits)
            assert (o.bits.q1, o.bits.median, o.bits.q3) == pytest.approx(tuple(np.quantile(bits, [0.25, 0.5, 0.75])))
            size = [t[6] for t in rows]
            assert (o.size.q1, o.size.median, o.size.q3) == pytest.approx(tuple(np.quantile(size, [0.25, 0.5, 0.75])))
        h = a.hazard[task]
        tokens = np.array([t[5] for t in mine])
        failed = np.array([not t[3] for t in mine])
        top = 1 << (int(tokens.max()).bit_length() - 1)
        assert (h.top, h.limited) == (top, False)
        for n, b in enumerate(h.bins):
            last = n == len(h.bins) - 1
            inside = (tokens >= b.low) & ((tokens < b.high) | last)
            assert (b.at_risk, b.ending, b.events) == (int((tokens >= b.low).sum()), int(inside.sum()),
                                                       int((inside & failed).sum()))

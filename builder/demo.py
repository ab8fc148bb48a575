"""The seeded demo simulator: fictional models on simulated reasoning tasks.

`reasonboard demo --models N --out DIR` writes a data directory that `build --data DIR`
accepts (PRODUCT.md "CLI"): `DIR/trials/<evaluation>.parquet`, one trials file per
evaluation (SAMPLES.md section 1, written by `demofiles.py`), and `DIR/evals.json`. The
repository's default `data/trials` and `data/evals.json` are this output for 16 models and seed 0 (`reasonboard demo --models 16
--out data --force`: `data/` also holds real EEE records and cards, and a directory that is
not empty is refused without `--force`). Every evaluation is marked `"simulated": true`, so every page that shows one can
say it is simulated demo data.

How a point is simulated. The tasks follow ReasonScape's task-complexity plane (seed 003,
"Manifold Parameter Types"): twelve generic puzzle families, none a real benchmark, each
sampled over a grid of two difficulty coordinates with a normalised difficulty `d` in [0, 1].
Each trial draws a latent hardness `u ~ N(0, 1)`. Its output length is log-normal,
`log tok = mu + sigma * (RHO * u + sqrt(1 - RHO^2) * e)`, and the trial is truncated when
`tok` exceeds the sampler's `max_tokens` (it then costs exactly that budget). The model knows
the answer with probability `logistic(logit - BETA * u)`; a completed trial is correct when
it knows or, on a multiple-choice task, guesses right (probability `1/k` for that trial's `k`
options). The guess accumulator sums `1/k` over completed trials (STATISTICS.md, counters).
Hard trials are both longer and less often known, so truncated trials are the hard ones: the
censoring the seed 003 estimators are about, and `E_I` reads visibly above `C_P` for models
that truncate. Counters are sums of simulated trials, so they are valid by construction, and
`truth()` gives the exact expected rates for checking interval coverage.

Determinism. Model `i` and each of its evaluations draw from their own PCG64 stream keyed by
`(seed, purpose, i, ...)`, so `--models 17` is `--models 16` plus one model and the two
directories diff like a pull request that adds data. Only `Generator.random()` is used
(normals by Box-Muller): numpy keeps PCG64's uniform doubles stable across releases but may
change how it draws normals (NEP 19), and the committed data must regenerate byte for byte.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .democompress import compressed_sizes
from .demofiles import PointTexts, SimulatedTrials, TrialsWriter
from .demoworld import GRIDS, SPECS, DemoEvaluation, build_roster, logistic, normals, stream
from .errors import InputError
from .store.trialfiles import TRIALS_DIR, trials_file_name

DEFAULT_MODELS = 16
DEFAULT_SEED = 0

# -- simulating points ----------------------------------------------------------------

RHO = 0.5    # correlation of log token length with the trial's hardness
BETA = 0.8   # how much a trial's hardness lowers the log-odds of knowing its answer
#: Trials per point, ReasonScape-style progressive sampling: 64 everywhere, doubled where the
#: expected accuracy is between 15 % and 85 % (where an interval is widest).
BASE_TRIALS = 64


@dataclass(frozen=True)
class SimulatedPoints:
    """The points of one evaluation as parallel arrays, and the parameters behind them.

    `logit`, `log_tokens` (`mu`), `sigma`, `limit` and the option range fully determine the
    distribution of every trial; see `truth()`.
    """

    evaluation: DemoEvaluation
    task: tuple[str, ...]
    params: tuple[str, ...]
    tiers: tuple[tuple[str, ...], ...]
    total: np.ndarray
    correct: np.ndarray
    truncated: np.ndarray
    guess: np.ndarray
    tokens: np.ndarray
    logit: np.ndarray
    log_tokens: np.ndarray
    sigma: float
    limit: int
    options_low: np.ndarray
    options_high: np.ndarray

    def __len__(self) -> int:
        return len(self.task)


def simulate_evaluation(run: DemoEvaluation, seed: int) -> SimulatedPoints:
    """Draw every trial of every point of `run` and sum them into point counters."""
    return simulate_trials(run, seed)[0]


def simulate_trials(run: DemoEvaluation, seed: int) -> tuple[SimulatedPoints, SimulatedTrials]:
    """Draw every trial of every point of `run`: the points and the trials they sum.

    With `run.epochs` > 1 a point's trials are its samples answered `epochs` times each:
    the epochs of a sample share its hardness (an item hard once is hard again), and each
    epoch draws its own knowing, guess and length. A trial's own distribution is the same
    as with one epoch, so `truth()` holds for both; only the epochs' agreement differs.
    """
    grids = [GRIDS[name] for name in run.tasks]
    logit = np.concatenate([
        run.ability + run.skills[g.task] - SPECS[g.task].base - SPECS[g.task].slope * run.scaling * g.difficulty
        for g in grids
    ])
    log_tokens = np.concatenate([
        math.log(SPECS[g.task].tokens * run.verbosity) + SPECS[g.task].growth * g.difficulty for g in grids
    ])
    options_low = np.concatenate([g.options_low for g in grids])
    options_high = np.concatenate([g.options_high for g in grids])
    total = BASE_TRIALS * (1 + (np.abs(logistic(logit) - 0.5) < 0.35)).astype(np.int64)

    point = np.repeat(np.arange(len(total)), total)
    n = len(point)
    within = np.arange(n) - np.repeat(np.cumsum(total) - total, total)
    rng = stream(seed, "trials", run.index, run.variant)
    z = normals(rng, 2 * n)
    hardness, noise = z[:n], z[n:]
    if run.epochs > 1:
        hardness = hardness[np.arange(n) - within % run.epochs]  # each sample's first epoch's draw
    know_u, options_u, guess_u = rng.random((3, n))
    raw_tokens = np.exp(log_tokens[point] + run.token_sigma * (RHO * hardness + math.sqrt(1 - RHO**2) * noise))
    truncated = raw_tokens > run.max_tokens
    knows = know_u < logistic(logit[point] - BETA * hardness)
    low, high = options_low[point], options_high[point]
    choice = low > 0
    k = np.where(choice, low + np.floor(options_u * (high - low + 1)), 1.0)
    completed = ~truncated
    correct = completed & (knows | (choice & (guess_u < 1.0 / k)))
    tokens = np.where(truncated, float(run.max_tokens), np.maximum(np.rint(raw_tokens), 1.0))

    def per_point(values: np.ndarray) -> np.ndarray:
        return np.bincount(point, weights=values, minlength=len(total))

    points = SimulatedPoints(
        evaluation=run,
        task=tuple(g.task for g in grids for _ in g.params),
        params=tuple(p for g in grids for p in g.params),
        tiers=tuple(t for g in grids for t in g.tiers),
        total=total,
        correct=np.rint(per_point(correct)).astype(np.int64),
        truncated=np.rint(per_point(truncated)).astype(np.int64),
        guess=per_point(np.where(completed & choice, 1.0 / k, 0.0)),
        tokens=np.rint(per_point(tokens)).astype(np.int64),
        logit=logit, log_tokens=log_tokens, sigma=run.token_sigma, limit=run.max_tokens,
        options_low=options_low, options_high=options_high,
    )
    trials = SimulatedTrials(
        point=point, sample=within // run.epochs, epoch=within % run.epochs + 1, correct=correct,
        truncated=truncated, options=np.where(choice, k, 0).astype(np.int64), tokens=tokens.astype(np.int64),
        compressed=compressed_sizes(run, seed, tokens, correct),
    )
    return points, trials


@dataclass(frozen=True)
class Truth:
    """Expected per-trial rates of each point: what an infinite sample would show.

    `truncated` = P(truncated); `knows_completed` = P(knows | completed), which the
    guess-corrected `C_I` estimates; `guess` = E[1/k] (0 for write-in);
    `correct_completed` = P(correct | completed), `E_I`'s target. `C_P` aims at
    `knows_completed * (1 - truncated)`, `E_P` at `correct_completed * (1 - truncated)`.
    """

    truncated: np.ndarray
    knows_completed: np.ndarray
    guess: np.ndarray
    correct_completed: np.ndarray


_erfc = np.vectorize(math.erfc, otypes=[float])


def truth(points: SimulatedPoints, nodes: int = 64) -> Truth:
    """Exact rates by Gauss-Hermite quadrature over the trial hardness `u`: given `u`,
    truncation is a normal tail in log tokens and knowing is a logistic, so both rates are
    one-dimensional integrals against the standard normal density."""
    u, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    spread = points.sigma * math.sqrt(1 - RHO**2)
    gap = (math.log(points.limit) - points.log_tokens[:, None] - points.sigma * RHO * u[None, :]) / spread
    p_trunc_u = 0.5 * _erfc(gap / math.sqrt(2.0))
    p_know_u = logistic(points.logit[:, None] - BETA * u[None, :])
    p_trunc = p_trunc_u @ w
    knows_completed = ((1.0 - p_trunc_u) * p_know_u) @ w / np.maximum(1.0 - p_trunc, 1e-300)
    # E[1/k] for k uniform on lo..hi: a difference of harmonic numbers over the range size.
    lo, hi = points.options_low, points.options_high
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, max(int(hi.max()), 1) + 1))])
    guess = np.where(lo > 0, (harmonic[hi] - harmonic[np.maximum(lo - 1, 0)]) / np.maximum(hi - lo + 1, 1), 0.0)
    return Truth(truncated=p_trunc, knows_completed=knows_completed, guess=guess,
                 correct_completed=guess + (1.0 - guess) * knows_completed)


# -- the corpus and its files ------------------------------------------------------------

POINTS_DIR = "points"
EVALS_FILE = "evals.json"
COLUMNS = ("model", "template", "sampler", "base_task", "params", "total", "correct", "truncated",
           "guess", "tokens", "tiers")


def model_slug(model: str) -> str:
    """The file stem for a model's points: lowercase ASCII letters, digits, `.`, `_`, `-`."""
    return re.sub(r"[^a-z0-9._-]+", "-", model.lower()).strip("-.") or "model"


def format_guess(value: float) -> str:
    """Six decimals without trailing zeros: `12.5`, `0`, `10.333333`."""
    text = f"{round(value, 6):.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


@dataclass(frozen=True)
class DemoData:
    """A simulated corpus in memory: one `SimulatedPoints` per evaluation, sorted by
    (model, template, sampler), with the CSV rows and `evals.json` entries they make."""

    models: int
    seed: int
    evaluations: tuple[SimulatedPoints, ...]

    @property
    def points(self) -> int:
        return sum(len(e) for e in self.evaluations)

    @property
    def evals(self) -> list[dict[str, Any]]:
        return [e.evaluation.evals_entry() for e in self.evaluations]

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """CSV rows (in `COLUMNS` order) of every evaluation."""
        for points in self.evaluations:
            yield from point_rows(points)


def point_rows(points: SimulatedPoints) -> Iterator[tuple[Any, ...]]:
    """The CSV rows of one evaluation, in task and grid order."""
    run = points.evaluation
    for task, params, tiers, total, correct, truncated, guess, tokens in zip(
        points.task, points.params, points.tiers, points.total.tolist(), points.correct.tolist(),
        points.truncated.tolist(), points.guess.tolist(), points.tokens.tolist(),
    ):
        yield (run.model, run.template, run.sampler, task, params, total, correct, truncated,
               format_guess(guess), tokens, ";".join(tiers))


def simulate(models: int = DEFAULT_MODELS, seed: int = DEFAULT_SEED) -> DemoData:
    """Simulate `models` fictional models (seeded, deterministic, no I/O)."""
    return DemoData(models, seed, tuple(simulate_evaluation(r, seed) for r in build_roster(models, seed)))


def write_points_files(out_dir: Path, data: DemoData) -> None:
    """`data`'s simulated counters as points files (one CSV per model: what the demo wrote
    before it wrote trials files) and its `evals.json`, for the tests and benchmarks of the
    points path."""
    (out_dir / "points").mkdir(parents=True, exist_ok=True)
    by_model: dict[str, list[SimulatedPoints]] = {}
    for evaluation in data.evaluations:
        by_model.setdefault(evaluation.evaluation.model, []).append(evaluation)
    for model, evaluations in by_model.items():
        with (out_dir / "points" / f"{model_slug(model)}.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(COLUMNS)
            for evaluation in evaluations:
                writer.writerows(point_rows(evaluation))
    (out_dir / "evals.json").write_text(json.dumps(data.evals, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                                        encoding="utf-8")


@dataclass(frozen=True)
class DemoSummary:
    """What `write_demo` wrote: counts for the CLI line, and the files."""

    models: int
    evaluations: int
    points: int
    trials: int
    files: tuple[Path, ...]


def refuse_non_empty(out_dir: Path) -> None:
    """`InputError` when `out_dir` exists and holds anything (a file in its place too)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(out_dir, "is a file, not a directory; choose a new or empty directory for the demo data")
    present = sorted(p.name for p in out_dir.iterdir()) if out_dir.is_dir() else []
    if present:
        shown = ", ".join(present[:5]) + (", ..." if len(present) > 5 else "")
        raise InputError(out_dir, f"the directory is not empty ({shown}); the demo would replace its evals.json "
                                  "and put simulated points beside its own. Choose a new or empty directory, "
                                  "or pass --force")


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="")
    tmp.replace(path)  # a reader never sees half a file


def _simulated(out_dir: Path) -> list[dict[str, Any]]:
    """The simulated entries of the `evals.json` a previous run wrote (none if unreadable)."""
    try:
        previous = json.loads((out_dir / EVALS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(previous, list):
        return []
    return [e for e in previous if isinstance(e, dict) and e.get("simulated") is True
            and all(isinstance(e.get(k), str) for k in ("model", "template", "sampler"))]


def _stale_demo_files(out_dir: Path, keep: set[str]) -> list[Path]:
    """Files of simulated evaluations a previous run listed in `evals.json` that this run does
    not write: a rerun with fewer models must not leave their trials behind, and the points
    files earlier versions of the demo wrote would give the same points twice. Files of
    anything not marked simulated are never touched."""
    previous = _simulated(out_dir)
    stems = sorted({model_slug(e["model"]) for e in previous})
    names = sorted({trials_file_name(e["model"], e["template"], e["sampler"]) for e in previous} - keep)
    found = [out_dir / POINTS_DIR / f"{s}.csv" for s in stems] + [out_dir / TRIALS_DIR / n for n in names]
    return [p for p in found if p.is_file()]


def write_demo(out_dir: str | Path, models: int = DEFAULT_MODELS, seed: int = DEFAULT_SEED,
               force: bool = False) -> DemoSummary:
    """Simulate and write `out_dir/trials/<evaluation>.parquet` (one trials file per
    evaluation, SAMPLES.md section 1) and `out_dir/evals.json`.

    A directory that is not empty is refused unless `force`: it is most likely someone's
    real data directory, whose `evals.json` this would replace and whose points folder it
    would fill with simulated models beside the real ones. Evaluations are simulated and
    written one at a time, so memory holds one evaluation's trials.
    """
    out_dir = Path(out_dir)
    if not force:
        refuse_non_empty(out_dir)
    runs = build_roster(models, seed)
    names = {trials_file_name(r.model, r.template, r.sampler) for r in runs}
    if len(names) != len(runs):
        raise ValueError("two simulated evaluations share a file name")
    (out_dir / TRIALS_DIR).mkdir(parents=True, exist_ok=True)
    for stale in _stale_demo_files(out_dir, names):
        stale.unlink()
    files, points, trial_count, evals = [], 0, 0, []
    with TrialsWriter() as writer:
        for run in runs:
            simulated, trials = simulate_trials(run, seed)
            path = out_dir / TRIALS_DIR / trials_file_name(run.model, run.template, run.sampler)
            writer.write(run, PointTexts(simulated.task, simulated.params, simulated.tiers), trials, path)
            files.append(path)
            points += len(simulated)
            trial_count += len(trials.point)
            evals.append(run.evals_entry())
    evals_path = out_dir / EVALS_FILE
    _write_text(evals_path, json.dumps(evals, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return DemoSummary(models=models, evaluations=len(runs), points=points, trials=trial_count,
                       files=(*files, evals_path))

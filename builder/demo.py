"""The seeded demo simulator: fictional models on simulated reasoning tasks.

`reasonboard demo --models N --out DIR` writes a data directory that `build --data DIR`
accepts (PRODUCT.md "CLI"): `DIR/points/<model>.csv`, one file per model name holding all of
its evaluations, and `DIR/evals.json`. The repository's default `data/points` and
`data/evals.json` are this output for 16 models and seed 0 (`reasonboard demo --models 16
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
import hashlib
import io
import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .errors import InputError

DEFAULT_MODELS = 16
DEFAULT_SEED = 0

# -- seeded streams --------------------------------------------------------------------


def _entropy(label: int | str) -> int:
    if isinstance(label, int):
        return label % 2**64  # any integer seed, negative included
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def stream(seed: int, *labels: int | str) -> np.random.Generator:
    """An independent generator for (seed, labels)."""
    entropy = [_entropy(seed), *map(_entropy, labels)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def normals(rng: np.random.Generator, size: int) -> np.ndarray:
    """`size` standard normal draws by Box-Muller on uniforms (both halves of each pair)."""
    pairs = (size + 1) // 2
    u = rng.random((2, pairs))
    radius = np.sqrt(-2.0 * np.log1p(-u[0]))  # 1 - u lies in (0, 1]: never log(0)
    angle = 2.0 * np.pi * u[1]
    return np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])[:size]


def _logistic(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # stable for large |x|


# -- the task catalogue ----------------------------------------------------------------

#: Overlapping difficulty bands for the v1 tier labels (closed intervals of `d`): a point near
#: a band edge is in two tiers (STATISTICS.md section 5: "a point may be in several").
TIER_BANDS = (("easy", 0.0, 0.4), ("medium", 0.3, 0.7), ("hard", 0.6, 1.0))


@dataclass(frozen=True)
class TaskSpec:
    """A simulated task and where it sits on the difficulty and token scales.

    `axes` are (coordinate, values from easiest to hardest). `options` is the inclusive range
    of answer options per trial, `(0, 0)` for write-in answers (no guessing); `options_axis`
    takes the option count from a coordinate instead (a shuffle of 5 objects has 5 possible
    answers). A trial's log-odds of knowing the answer are lowered by `base + slope * scaling
    * d`; its median length is `tokens * verbosity * exp(growth * d)`.
    """

    name: str
    axes: tuple[tuple[str, tuple[int, ...]], ...]
    base: float
    slope: float
    tokens: float
    growth: float
    options: tuple[int, int] = (0, 0)
    options_axis: str | None = None


TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("arithmetic", (("length", (8, 16, 24, 32)), ("depth", (0, 1, 2, 3))),
             base=-1.0, slope=3.0, tokens=550, growth=1.2),
    TaskSpec("boolean", (("terms", (4, 8, 12, 16)), ("nesting", (1, 2, 3))),
             base=-0.6, slope=2.6, tokens=400, growth=0.9, options=(2, 2)),
    TaskSpec("brackets", (("length", (10, 20, 30, 40, 50)), ("kinds", (1, 2, 3))),
             base=-0.5, slope=3.0, tokens=650, growth=1.0),
    TaskSpec("dates", (("offset_days", (1, 7, 30, 365)), ("steps", (1, 2, 3))),
             base=-0.3, slope=2.2, tokens=500, growth=0.8, options=(4, 4)),
    TaskSpec("letters", (("words", (4, 8, 16, 24)), ("targets", (1, 2, 3))),
             base=0.2, slope=2.8, tokens=700, growth=1.1),
    TaskSpec("movies", (("choices", (3, 4, 5, 6)), ("references", (2, 4, 6))),
             base=-0.2, slope=1.6, tokens=350, growth=0.5, options_axis="choices"),
    TaskSpec("navigation", (("grid", (3, 5, 7)), ("moves", (4, 8, 12, 16))),
             base=0.0, slope=2.5, tokens=800, growth=1.0, options=(4, 4)),
    TaskSpec("objects", (("items", (4, 8, 12, 16)), ("distractors", (0, 4, 8))),
             base=-0.8, slope=2.6, tokens=500, growth=0.9),
    TaskSpec("sequence", (("length", (5, 10, 15, 20)), ("rules", (1, 2, 3))),
             base=0.3, slope=3.2, tokens=950, growth=1.3),
    TaskSpec("shapes", (("vertices", (3, 4, 5, 6, 8)), ("noise", (0, 1, 2))),
             base=0.0, slope=2.0, tokens=1100, growth=0.8, options=(4, 8)),
    TaskSpec("shuffle", (("objects", (3, 5, 7)), ("swaps", (2, 4, 8, 12))),
             base=-0.2, slope=2.8, tokens=800, growth=1.2, options_axis="objects"),
    TaskSpec("sort", (("length", (4, 8, 16, 32)), ("case_mutations", (0, 1, 2))),
             base=-0.6, slope=3.0, tokens=650, growth=1.4),
)
TASK_NAMES: tuple[str, ...] = tuple(sorted(t.name for t in TASKS))
SPECS: dict[str, TaskSpec] = {t.name: t for t in TASKS}


@dataclass(frozen=True)
class TaskGrid:
    """A task's grid points as parallel arrays, first axis slowest: canonical `params`
    JSON, difficulty `d`, the option range per point (0 = write-in) and the tier labels."""

    task: str
    params: tuple[str, ...]
    difficulty: np.ndarray
    options_low: np.ndarray
    options_high: np.ndarray
    tiers: tuple[tuple[str, ...], ...]


def task_grid(spec: TaskSpec) -> TaskGrid:
    """Every point of a task's grid; `d` is the mean of the axes' relative positions."""
    positions = list(itertools.product(*(range(len(values)) for _, values in spec.axes)))
    scale = np.array([len(values) - 1 for _, values in spec.axes], dtype=float)
    difficulty = (np.array(positions, dtype=float) / scale).mean(axis=1)
    coords = [{name: values[i] for (name, values), i in zip(spec.axes, pos)} for pos in positions]
    if spec.options_axis:
        low = high = np.array([c[spec.options_axis] for c in coords], dtype=np.int64)
    else:
        low = np.full(len(coords), spec.options[0], dtype=np.int64)
        high = np.full(len(coords), spec.options[1], dtype=np.int64)
    tiers = tuple(tuple(name for name, lo, hi in TIER_BANDS if lo - 1e-9 <= d <= hi + 1e-9) for d in difficulty)
    params = tuple(json.dumps(c, sort_keys=True, separators=(",", ":")) for c in coords)
    return TaskGrid(spec.name, params, difficulty, low, high, tiers)


GRIDS: dict[str, TaskGrid] = {t.name: task_grid(t) for t in TASKS}

# -- the fictional models ----------------------------------------------------------------

#: Fictional model families (none a real model line); each has a fictional developer lab.
FAMILIES = (
    "larkspur", "basalt", "cormorant", "saffron", "thistle", "halyard", "marigold", "ptarmigan",
    "bramble", "sorrel", "lichen", "gannet", "tamarind", "pumice", "vetch", "quillon",
)
SIZES = ("2b", "4b", "8b", "14b", "32b", "70b", "123b", "405b")
#: Fictional third-party evaluators: the usual publisher, and a second party that re-runs
#: some models with a larger budget (so the site's own results have cross-party checks).
EVALUATOR = "Meridian Evaluation Group"
SECOND_EVALUATOR = "Lantern Evaluation Collective"
HARNESS = "reasonboard demo simulator"
TEMPLATE = "zerocot"

#: Samplers and the generation settings they stand for. `max_tokens` is also the simulated
#: output limit, so truncation follows from the sampler.
SAMPLERS: dict[str, dict[str, float | int]] = {
    "greedy-8k": {"temperature": 0.0, "max_tokens": 8192},
    "t0.7-8k": {"temperature": 0.7, "top_p": 0.95, "max_tokens": 8192},
    "t0.6-16k": {"temperature": 0.6, "top_p": 0.95, "max_tokens": 16384},
    "t0.6-32k": {"temperature": 0.6, "top_p": 0.95, "max_tokens": 32768},
}

#: Roles are given by index, not by chance, so the default 16 models reliably exercise every
#: feature of the site: role -> (modulus, remainder), model `i` has it when `i % m == r`.
ROLES: dict[str, tuple[int, int]] = {
    "thinking": (4, 1),          # verbose reasoning model: more tokens, more truncation
    "budget_variant": (8, 5),    # a thinking model re-run by a second party with 32k tokens
    "sampler_variant": (8, 2),   # an instruct model re-run with temperature sampling
    "incomplete": (50, 9),       # one task not evaluated: no rank (STATISTICS.md section 4)
    "specialist": (13, 6),       # fails one task almost completely (the geometric mean's penalty)
    "collapse": (9, 7),          # accuracy falls off steeply with difficulty (the v1 tiers)
    "first_party": (5, 0),       # reported by the model's own developer
    "collaborative": (16, 3),
    "no_max_tokens": (7, 4),     # the report leaves out max_tokens (EVALCARDS.md section 4)
    "no_temperature": (10, 8),   # the report leaves out temperature
}

#: Abilities on the logit scale follow a golden-ratio sequence over this range, so even a
#: handful of models spreads across every interpretation band and neighbours come close
#: enough to tie.
ABILITY_RANGE = (-2.2, 5.0)
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def has_role(index: int, role: str) -> bool:
    modulus, remainder = ROLES[role]
    return index % modulus == remainder


@dataclass(frozen=True)
class DemoEvaluation:
    """One (model, template, sampler) run: its `evals.json` fields and the hidden parameters
    that generate its points.

    `ability` is the log-odds offset of knowing an answer, `skills` a per-task offset (models
    disagree about which tasks are hard, seed 001), `scaling` multiplies every task's
    difficulty slope, `verbosity` its token length, `token_sigma` is the spread of log token
    counts and `max_tokens` the limit past which a trial is truncated.
    """

    index: int
    variant: int
    model: str
    template: str
    sampler: str
    label: str
    groups: tuple[str, ...]
    hf_id: str
    organization: str
    relationship: str
    generation_args: dict[str, Any]
    tasks: tuple[str, ...]
    ability: float
    skills: dict[str, float]
    scaling: float
    verbosity: float
    token_sigma: float
    max_tokens: int

    def evals_entry(self) -> dict[str, Any]:
        """The `evals.json` object of this run (PRODUCT.md "Inputs"), keys sorted."""
        return {
            "generation_args": dict(sorted(self.generation_args.items())), "groups": list(self.groups),
            "harness": HARNESS, "hf_id": self.hf_id, "label": self.label, "model": self.model,
            "organization": self.organization, "relationship": self.relationship,
            "sampler": self.sampler, "simulated": True, "template": self.template,
        }


def build_model(index: int, seed: int) -> list[DemoEvaluation]:
    """The evaluations of model `index`: its primary run and, for some roles, a second one."""
    rng = stream(seed, "model", index)
    draws = normals(rng, 4 + len(TASK_NAMES))
    family_offset = int(stream(seed, "families").random() * len(FAMILIES))
    family = FAMILIES[(index + family_offset) % len(FAMILIES)]
    generation = index // len(FAMILIES) + 1
    thinking = has_role(index, "thinking")
    position = (stream(seed, "abilities").random() + GOLDEN * (index + 1)) % 1.0
    ability = ABILITY_RANGE[0] + position * (ABILITY_RANGE[1] - ABILITY_RANGE[0]) + 0.15 * draws[0]
    if thinking:
        ability += 0.6
    # Stronger models tend to be bigger, with exceptions.
    size = SIZES[int(np.clip(round(position * (len(SIZES) - 1) + 0.8 * draws[1]), 0, len(SIZES) - 1))]

    skills = {task: 0.45 * z for task, z in zip(TASK_NAMES, draws[4:])}
    if has_role(index, "specialist"):
        skills[TASK_NAMES[int(rng.random() * len(TASK_NAMES))]] -= 5.5
    tasks = TASK_NAMES
    if has_role(index, "incomplete"):
        skipped = TASK_NAMES[int(rng.random() * len(TASK_NAMES))]
        tasks = tuple(t for t in TASK_NAMES if t != skipped)

    mode = "think" if thinking else "instruct"
    generation_part = f"-{generation}" if generation > 1 else ""
    model = f"{family}{generation_part}-{size}-{mode}"
    label = f"{family.capitalize()}{generation_part.replace('-', ' ')} {size.upper()} {mode.capitalize()}"
    lab = f"{family.capitalize()} Labs"
    if has_role(index, "first_party"):
        relationship, organization = "first_party", lab
    elif has_role(index, "collaborative"):
        relationship, organization = "collaborative", f"{lab} with {EVALUATOR}"
    else:
        relationship, organization = "third_party", EVALUATOR
    common: dict[str, Any] = dict(
        index=index, model=model, template=TEMPLATE, label=label,
        groups=(f"family:{family}", f"mode:{mode}", f"size:{size}"), hf_id=f"demo-{family}/{model}",
        organization=organization, relationship=relationship, tasks=tasks, ability=ability, skills=skills,
        scaling=math.exp(0.2 * draws[2]) * (2.0 if has_role(index, "collapse") else 1.0),
        verbosity=math.exp(0.25 * draws[3]) * (4.5 if thinking else 1.0),
        token_sigma=0.45 + 0.2 * rng.random(),
    )

    def run(variant: int, sampler: str, **changes: Any) -> DemoEvaluation:
        args = dict(SAMPLERS[sampler])
        if variant == 0 and has_role(index, "no_max_tokens"):
            del args["max_tokens"]
        if variant == 0 and has_role(index, "no_temperature"):
            del args["temperature"]
        fields = {**common, "variant": variant, "sampler": sampler, "generation_args": args,
                  "max_tokens": int(SAMPLERS[sampler]["max_tokens"]), **changes}
        return DemoEvaluation(**fields)

    runs = [run(0, "t0.6-16k" if thinking else "greedy-8k")]
    if has_role(index, "budget_variant"):
        runs.append(run(1, "t0.6-32k", tasks=TASK_NAMES, relationship="third_party",
                        organization=SECOND_EVALUATOR))
    if has_role(index, "sampler_variant"):
        # Temperature sampling: a little less accurate and a little wordier than greedy.
        runs.append(run(1, "t0.7-8k", tasks=TASK_NAMES, ability=ability - 0.2,
                        verbosity=common["verbosity"] * 1.1))
    return runs


def build_roster(models: int, seed: int) -> list[DemoEvaluation]:
    """Every evaluation of `models` fictional models, sorted by (model, template, sampler)."""
    if models < 1:
        raise ValueError("the demo needs at least one model")
    runs = [r for i in range(models) for r in build_model(i, seed)]
    return sorted(runs, key=lambda r: (r.model, r.template, r.sampler))


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
    total = BASE_TRIALS * (1 + (np.abs(_logistic(logit) - 0.5) < 0.35)).astype(np.int64)

    point = np.repeat(np.arange(len(total)), total)
    n = len(point)
    rng = stream(seed, "trials", run.index, run.variant)
    z = normals(rng, 2 * n)
    hardness, noise = z[:n], z[n:]
    know_u, options_u, guess_u = rng.random((3, n))
    raw_tokens = np.exp(log_tokens[point] + run.token_sigma * (RHO * hardness + math.sqrt(1 - RHO**2) * noise))
    truncated = raw_tokens > run.max_tokens
    knows = know_u < _logistic(logit[point] - BETA * hardness)
    low, high = options_low[point], options_high[point]
    choice = low > 0
    k = np.where(choice, low + np.floor(options_u * (high - low + 1)), 1.0)
    completed = ~truncated
    correct = completed & (knows | (choice & (guess_u < 1.0 / k)))
    tokens = np.where(truncated, float(run.max_tokens), np.maximum(np.rint(raw_tokens), 1.0))

    def per_point(values: np.ndarray) -> np.ndarray:
        return np.bincount(point, weights=values, minlength=len(total))

    return SimulatedPoints(
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
    p_know_u = _logistic(points.logit[:, None] - BETA * u[None, :])
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


@dataclass(frozen=True)
class DemoSummary:
    """What `write_demo` wrote: counts for the CLI line, and the files."""

    models: int
    evaluations: int
    points: int
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


def _csv_text(evaluations: list[SimulatedPoints]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for points in evaluations:
        writer.writerows(point_rows(points))
    return buffer.getvalue()


def _stale_demo_files(out_dir: Path, keep: set[str]) -> list[Path]:
    """Points files of simulated models a previous run listed in `evals.json` and this run
    does not write (a rerun with fewer models must not leave their points behind). Files of
    anything not marked simulated are never touched."""
    try:
        previous = json.loads((out_dir / EVALS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(previous, list):
        return []
    stems = {model_slug(e["model"]) for e in previous
             if isinstance(e, dict) and e.get("simulated") is True and isinstance(e.get("model"), str)}
    return [p for p in (out_dir / POINTS_DIR / f"{s}.csv" for s in sorted(stems - keep)) if p.is_file()]


def write_demo(out_dir: str | Path, models: int = DEFAULT_MODELS, seed: int = DEFAULT_SEED,
               force: bool = False) -> DemoSummary:
    """Simulate and write `out_dir/points/<model>.csv` (one per model) and `out_dir/evals.json`.

    A directory that is not empty is refused unless `force`: it is most likely someone's
    real data directory, whose `evals.json` this would replace and whose points folder it
    would fill with simulated models beside the real ones.
    """
    out_dir = Path(out_dir)
    if not force:
        refuse_non_empty(out_dir)
    data = simulate(models, seed)
    names = sorted({e.evaluation.model for e in data.evaluations})
    slugs = {model_slug(m) for m in names}
    if len(slugs) != len(names):
        raise ValueError("two simulated model names share a file name")
    (out_dir / POINTS_DIR).mkdir(parents=True, exist_ok=True)
    for stale in _stale_demo_files(out_dir, slugs):
        stale.unlink()
    files = []
    for name, runs in itertools.groupby(data.evaluations, key=lambda e: e.evaluation.model):
        path = out_dir / POINTS_DIR / f"{model_slug(name)}.csv"
        _write_text(path, _csv_text(list(runs)))
        files.append(path)
    evals_path = out_dir / EVALS_FILE
    _write_text(evals_path, json.dumps(data.evals, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return DemoSummary(models=models, evaluations=len(data.evaluations), points=data.points,
                       files=(*files, evals_path))

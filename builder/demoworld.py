"""The demo's simulated world: seeded random streams, the task catalogue (twelve puzzle
families on a grid of two difficulty coordinates) and the roster of fictional models with
their evaluations. `demo.py` simulates their points and writes the files; how a point is
simulated, and why only `Generator.random()` is used, is in its docstring.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

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


def logistic(x: np.ndarray) -> np.ndarray:
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
    # Sampled several times per item (Inspect's epochs): fewer samples, each answered EPOCHS
    # times, so the design effect of SAMPLES.md section 2 shows. Past the default 16 models,
    # whose numbers stay those of the committed demo data.
    "epochs": (20, 17),
}
#: Epochs per sample of a model with the `epochs` role.
EPOCHS = 4


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
    counts and `max_tokens` the limit past which a trial is truncated. `epochs` is how many
    times each sample is answered.
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
    epochs: int = 1

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

    if has_role(index, "epochs"):
        # Epochs of a greedy run would repeat one answer: the repeated run samples.
        runs = [run(0, "t0.6-16k" if thinking else "t0.7-8k", epochs=EPOCHS)]
    else:
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

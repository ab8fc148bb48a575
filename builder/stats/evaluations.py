"""The evaluations a leaderboard ranks, and the identity of each: its id, its label, its page
slug and the `evals.json` facts the pages and the export show.

The identity is made here, once, from the store's rows and the config's choice of
evaluations: the id and the label are what every output names an evaluation by, and the
slug (its page's address) depends on which evaluations of the same model are shown, so it
is made with them (`slugs.evaluation_slugs`), not by the statistics that rank them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..config import SiteConfig
from ..errors import InputError
from ..slugs import evaluation_slugs


def evaluation_id(model: str, template: str, sampler: str) -> str:
    """A readable, unique id for one evaluation (model, template, sampler)."""
    return f"{model}|{template}|{sampler}"


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One evaluation as every stage after the store names it."""

    id: str
    model: str
    template: str
    sampler: str
    #: The evals.json label (or the model name), told apart from the model's other
    #: evaluations by "(template, sampler)" when it has several (`labels_for`).
    label: str
    #: Its page is `models/<slug>.html`: the model's own page while the model has one
    #: evaluation, else `<model>/<template>-<sampler>` under it.
    slug: str
    #: Its row's HTML id on lists of evaluations (names the evaluation, never its rank).
    anchor: str
    #: The model's own page slug (`models/<model_slug>.html`), whatever its evaluations.
    model_slug: str
    hf_id: str | None
    organization: str | None
    relationship: str | None
    #: Free-form, as evals.json gives it (a JSON object).
    generation_args: Mapping[str, object]
    harness: str | None
    simulated: bool
    groups: tuple[str, ...]
    #: INGEST.md section 6: whether the harness recorded truncation and tokens at all.
    truncation_observed: bool
    tokens_observed: bool
    #: evals.json prices (PRODUCT.md "Cost"): USD per million input and output tokens,
    #: where and when they were read; None where not given.
    price_in: float | None = None
    price_out: float | None = None
    price_source: str | None = None
    price_date: str | None = None
    #: Per task, the harness's own headline figure as its log records it: (metric, value).
    harness_scores: Mapping[str, tuple[str, float]] = field(default_factory=dict)
    #: The trials files its points came from, relative to the data directory (none: no
    #: per-sample outcomes).
    trial_files: tuple[str, ...] = ()
    #: evals.json `likelihood_tasks`: its tasks scored by log-likelihood, which sample
    #: nothing (no temperature or token limit applies: EVALCARDS.md section 4 by task kind).
    likelihood_tasks: frozenset[str] = frozenset()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.model, self.template, self.sampler)


def select_evaluations(evaluations: list[dict[str, Any]], config: SiteConfig) -> list[dict[str, Any]]:
    """Apply the config's `[evaluations]` choice (one "template/sampler" per model name)."""
    chosen = config.evaluations
    if not chosen:
        return evaluations
    available = {(e["model"], f"{e['template']}/{e['sampler']}") for e in evaluations}
    for model, choice in chosen.items():
        if (model, choice) not in available:
            raise InputError(config.path, f"key 'evaluations.{model}' = '{choice}' matches no evaluation "
                                          "(expected \"template/sampler\" of one of the model's evaluations)")
    return [e for e in evaluations
            if e["model"] not in chosen or chosen[e["model"]] == f"{e['template']}/{e['sampler']}"]


def labels_for(evaluations: Sequence[Mapping[str, Any]]) -> list[str]:
    """The evals.json label (or the model name), with template and sampler added when one
    model name has several evaluations, so every row reads differently."""
    per_model: dict[str, int] = {}
    for e in evaluations:
        per_model[e["model"]] = per_model.get(e["model"], 0) + 1
    labels = []
    for e in evaluations:
        label = e.get("label") or e["model"]
        if per_model[e["model"]] > 1:
            label = f"{label} ({e['template']}, {e['sampler']})"
        labels.append(label)
    return labels


def identify(rows: list[dict[str, Any]], config: SiteConfig) -> list[Evaluation]:
    """The evaluations the config chooses (`PointsDB.evaluations` rows), in the store's
    order, each with its identity."""
    chosen = select_evaluations(rows, config)
    labels = labels_for(chosen)
    slugs = evaluation_slugs([(e["model"], e["template"], e["sampler"]) for e in chosen])
    return [Evaluation(
        id=evaluation_id(e["model"], e["template"], e["sampler"]), model=e["model"], template=e["template"],
        sampler=e["sampler"], label=label, slug=slug.page, anchor=slug.anchor, model_slug=slug.model,
        # One organisation and relationship per evaluation: its own, else the site's (as its
        # result rows say), so its page and its rows never disagree.
        hf_id=e.get("hf_id"), organization=e.get("organization") or config.organization or None,
        relationship=e.get("relationship") or config.relationship,
        generation_args=json.loads(e.get("generation_args") or "{}"), harness=e.get("harness"),
        simulated=bool(e.get("simulated")), groups=tuple(e.get("groups") or ()),
        truncation_observed=e.get("truncation_observed") is not False,
        tokens_observed=e.get("tokens_observed") is not False,
        price_in=e.get("price_in"), price_out=e.get("price_out"), price_source=e.get("price_source"),
        price_date=e.get("price_date"), likelihood_tasks=frozenset(e.get("likelihood_tasks") or ()),
        harness_scores={task: (v["metric"], float(v["value"]))
                        for task, v in sorted(json.loads(e.get("harness_scores") or "{}").items())},
        trial_files=tuple(e.get("trial_files") or ()),
    ) for e, label, slug in zip(chosen, labels, slugs)]

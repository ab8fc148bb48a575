"""Every sentence true for the data it describes: the whole per-instance corpus, ingested and
built together as a lab would (`reasonboard init`, `ingest`, `build`), searched page by page
for each claim whose premise fails. The corpus is `../shared/data/per-instance` beside the
repository where it is (as in CI), else its copy under `tests/data/`.

Each premise is computed here independently, from the ingested trials files and
`evals.json` (what the lab's harness recorded), never from the build's own statistics,
and each claim is looked for as a reader sees it: in the text and the hover titles of the
built pages.

a. score/token and its band withheld, with the reason, where answers are capped at 16 tokens
   or fewer (or average that few) or tokens were not recorded;
b. no "0 tokens per trial": an evaluation reporting 0 output tokens for every answer did
   not record them;
c. the interval-width causes are the evaluation's own (few samples, truncation, spread);
d. "C_P equals C_I here" only where the printed estimates are equal;
e. no temperature or max_tokens missing from a task scored by log-likelihood;
f. "0 = no better than guessing" only where every task's guesses were removed;
g. one relationship per evaluation: its page's setup and its result row agree;
h. the token analyses' reasons: "no output-token limit" only where the run recorded none,
   an answer cap named as one, and "the last bin runs to the token limit" only where a
   recorded limit leaves a bin;
i. every recorded setting is visible: a stop sequence of a newline is not an empty cell;
j. no band rates the score per token of an evaluation with a task of fewer than 20 samples
   (SAMPLES.md section 4), ranked, preliminary or incomplete alike;
k. trials answered in epochs are counted as "N samples × E epochs", in the singular for one;
l. a task page speaks of statistically tied neighbours only where it ranks two results or more
   (one ranked result has no neighbour);
m. a matrix cell's rank range counts the ranked results on its task, and a result on fewer
   than 20 samples reads "preliminary", never "rank 0";
n. a model page's headline tokens and truncation are counted over the board's tasks: where the
   evaluation has none of them it says so, with no dash standing for a share; elsewhere the
   share printed is that of the board's tasks it has;
o. a difficulty curve is said to be drawn "for every model on this task" only where every
   evaluation with the task has the coordinate; else it counts those that record it;
p. a model's page of several evaluations calls them leaderboard rows with a ReasonScore only as
   far as they are ranked (every task of the board, each on 20 samples or more), and speaks of
   two of them tied only where two are ranked;
q. the pairwise page speaks of "the top N of M ranked models" only where it compares two or
   more; with none ranked it says so.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT
from helpers_lab import cli_ok
from helpers_points import duck_rows
from helpers_site import Node, html_pages, page, row_cells

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "per-instance"
DATA = SHARED if SHARED.is_dir() else Path(__file__).parent / "data" / "per-instance"
BANDS = tomllib.loads((ROOT / "content" / "bands.toml").read_text(encoding="utf-8"))
SPT_TEXTS = [b["text"] for b in BANDS["score_per_token"]]
#: The stock causes the width bands once gave (the matrix's "✂ high truncation" legend is a
#: mark on cells that are, and is not one of them).
STOCK_CAUSES = ("high truncation or", "task-to-task variance", "mid-tier accuracy", "little truncation",
                "consistent across tasks")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    project = tmp_path_factory.mktemp("sentences") / "lab"
    cli_ok("init", str(project))
    cli_ok("ingest", str(DATA), "--project", str(project))
    cli_ok("build", "--project", str(project), "--quiet")
    return project / "data", project / "site"


class Facts:
    """One evaluation as the lab's files record it: summed per task from the points files."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.generation_args: dict = {}
        self.relationship: str | None = None

    def total(self, column: str) -> float:
        return sum(t[column] for t in self.tasks.values())


def facts(data: Path) -> dict[str, Facts]:
    """Per evaluation and task, summed from the trials files ingest wrote (one row a trial)."""

    found: dict[str, Facts] = defaultdict(Facts)
    files = sorted(str(p) for p in (data / "trials").rglob("*.parquet"))
    _, rows = duck_rows(
        """SELECT model, template, sampler, base_task, count(*), count(*) FILTER (WHERE truncated),
                  coalesce(sum(1.0 / options) FILTER (WHERE NOT truncated AND options IS NOT NULL), 0),
                  coalesce(sum(tokens), 0), count(DISTINCT (params, sample_id))
           FROM read_parquet(?, union_by_name = true) GROUP BY ALL""", [files])
    for model, template, sampler, task, total, truncated, guess, tokens, samples in rows:
        one = found[f"{model}|{template}|{sampler}"].tasks[task]
        one.update(total=total, truncated=truncated, guess=guess, tokens=tokens, samples=samples)
    for entry in json.loads((data / "evals.json").read_text(encoding="utf-8")):
        one = found[f"{entry['model']}|{entry['template']}|{entry['sampler']}"]
        one.generation_args = entry.get("generation_args") or {}
        one.relationship = entry.get("relationship")
    return dict(found)


def model_pages(site: Path) -> dict[str, Node]:
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    return {m["id"]: page(site, f"models/{m['slug']}.html") for m in board["models"]}


def said(node: Node) -> str:
    """The text and the hover titles of a page or an element: all a reader can see, with the
    sentences its badges point to (`aria-describedby`: the key under a result table, shown
    on hover and read with the badge)."""
    titles = " ".join(n.attrs["title"] for n in node.iter() if "title" in n.attrs)
    root = node
    while root.parent is not None:
        root = root.parent
    described = " ".join(root.by_id(n.attrs["aria-describedby"]).text for n in node.iter()
                         if "aria-describedby" in n.attrs and n.tag == "li")
    return f"{node.text} {titles} {described}"


def capped(f: Facts) -> bool:
    cap = next((f.generation_args[k] for k in ("max_tokens", "max_new_tokens", "max_gen_toks")
                if isinstance(f.generation_args.get(k), int)), None)
    tokens, trials = f.total("tokens"), f.total("total")
    # The average the site shows is task-balanced (STATISTICS.md section 6).
    per_task = [t["tokens"] / t["total"] for t in f.tasks.values()]
    average = sum(per_task) / len(f.tasks)
    # The figure divides by that average: one task of answers that short (or of no tokens
    # recorded) makes it say nothing about efficiency, whatever the others show.
    one_task = len(per_task) > 1 and any(v <= 16 for v in per_task)
    return (cap is not None and cap <= 16) or (tokens > 0 and trials > 0 and (average <= 16 or one_task))


def test_a_score_per_token_bands_only_where_tokens_measure_efficiency(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    withheld = 0
    for model_id, doc in pages.items():
        f = evaluations[model_id]
        text = said(doc)
        if capped(f) or f.total("tokens") == 0:
            assert not doc.find_all(cls="band-score_per_token-excellent"), model_id
            assert not [t for t in SPT_TEXTS if t in text], model_id
            assert not re.search(r"Score/token \d", text), model_id
            withheld += 1
            if f.total("tokens") > 0:
                assert "Score/token withheld: answers " in text and "say nothing about efficiency" in text
    assert withheld >= 12  # the HELM multiple-choice runs (max_tokens 1) among them
    # lm-eval's gpt2: one-token mmlu answers and narrativeqa, 21 tokens on average over the two.
    gpt2 = evaluations["openai/gpt2|default|default"]
    assert sum(t["tokens"] / t["total"] for t in gpt2.tasks.values()) / 2 > 16
    short = gpt2.tasks["mmlu"]["tokens"] / gpt2.tasks["mmlu"]["total"]
    assert short <= 16
    assert (f"Score/token withheld: answers on mmlu average {short:.3g} token{'' if short == 1 else 's'} (a letter or "
            "a few words), so tokens averaged over its 2 tasks say nothing about efficiency.") in said(
                pages["openai/gpt2|default|default"])
    helm = pages["openai/gpt-4o-2024-05-13|multiple_choice_joint|greedy-1"]
    assert "Score/token withheld: answers were capped at 1 token, so tokens say nothing about efficiency." in said(helm)
    # On every index page the rows of those evaluations carry no score/token band either.
    for rel in html_pages(site):
        doc = page(site, rel)
        for row in doc.find_all("tr"):
            link = row.find("a")
            if link is None or not doc.find_all(cls="band"):
                continue
            for model_id in pages:
                if capped(evaluations[model_id]) and link.attrs.get("href", "").endswith(
                        f"{model_doc_slug(site, model_id)}.html"):
                    assert not row.find_all(cls="band-score_per_token-excellent"), (rel, model_id)


def model_doc_slug(site: Path, model_id: str) -> str:
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    return next(m["slug"] for m in board["models"] if m["id"] == model_id)


def test_b_no_unrecorded_token_count_is_printed_as_a_number(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    for rel in html_pages(site):
        assert not re.search(r"\b0 tokens? per trial", page(site, rel).text), rel
    silent = [m for m, f in evaluations.items() if f.total("tokens") == 0 and m in pages]
    assert "google/gemini-1.5-pro-001|multiple_choice_joint|greedy-1" in silent  # HELM: 0 output tokens
    for model_id in silent:
        text = said(pages[model_id])
        assert "tokens not recorded" in text, model_id
        assert "tokens per trial" not in pages[model_id].text.replace("no tokens per trial", ""), model_id


def test_c_interval_width_causes_are_the_evaluations_own(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    for rel in html_pages(site):
        text = said(page(site, rel))
        for stock in STOCK_CAUSES:
            assert stock not in text, (rel, stock)
    checked = 0
    for model_id, doc in pages.items():
        f = evaluations[model_id]
        width = next((p.text for p in doc.find_all("p") if p.text.startswith("Interval width:")), "")
        causes = width.split(" Here: ", 1)[1].rstrip(".").split("; ") if " Here: " in width else []
        truncated = f.total("truncated") / f.total("total")
        for cause in causes:
            if cause.startswith("few samples ("):
                smallest = min(t["samples"] for t in f.tasks.values())
                assert f"{int(smallest)} " in cause, (model_id, cause)
                assert smallest < 1000
            elif cause.startswith("truncation ("):
                assert truncated >= 0.05, (model_id, cause)
            elif cause.startswith("task scores spread"):
                assert len(f.tasks) >= 2, (model_id, cause)
            else:
                raise AssertionError(f"{model_id}: unknown cause {cause!r}")
        if len(f.tasks) == 1 and truncated == 0 and "Wide" in width:
            (only,) = f.tasks.values()
            assert causes == [f"few samples ({int(only['samples'])} on its one task)"], model_id
            checked += 1
    assert checked >= 9  # the single-task HELM runs of 2 instances, and more


def _estimates(doc: Node) -> dict[str, tuple[str, str]]:
    """Task -> (C_P, C_I) estimates as printed in a model page's table of the six estimators."""
    table = next(t for t in doc.find_all("table") if "estimator" in (t.find("caption").text if t.find("caption") else ""))
    heads = [c.text for c in row_cells(table.find("thead").find("tr"))]
    out = {}
    for row in table.find("tbody").find_all("tr"):
        cells = [c.text for c in row_cells(row)]
        out[cells[0]] = (cells[heads.index("C_P")].split("[")[0], cells[heads.index("C_I")].split("[")[0])
    return out


def _equal(estimates: dict[str, tuple[str, str]], task: str | None = None) -> bool:
    return all(c_p == c_i for name, (c_p, c_i) in estimates.items() if task in (None, name))


def test_d_c_p_equals_c_i_only_where_it_does(corpus):
    _, site = corpus
    pages = model_pages(site)
    by_slug = {model_doc_slug(site, m): m for m in pages}
    said_equal = checked = 0
    for rel in html_pages(site):
        doc = page(site, rel)
        task_page = doc.find("h1").text if rel.startswith("tasks/") else None
        for row in doc.find_all("tr"):
            if "C_P equals C_I" not in said(row):
                if "truncation not recorded by" in said(row):  # the notes naming the harness say what follows
                    assert "no trial counted as truncated" in said(row), rel
                continue
            said_equal += 1
            links = [a.attrs.get("href", "") for a in row.find_all("a")]
            target = next((h for h in links if "models/" in h), None)
            if target is None:  # a task row of a model page
                estimates, task = _estimates(doc), row.find("a").text
            else:
                slug = target.rsplit("models/", 1)[-1].removesuffix(".html")
                estimates, task = _estimates(pages[by_slug[slug]]), task_page
            assert _equal(estimates, task), (rel, task)
            checked += 1
    for model_id, doc in pages.items():
        box = next(s for s in doc.find_all("section") if s.find("h2") and s.find("h2").text == "Tokens and truncation")
        if "C_P equals C_I" in said(box):
            assert _equal(_estimates(doc)), model_id
    assert checked == said_equal


def likelihood_tasks(data: Path) -> dict[str, set[str]]:
    """{lm-eval model name: its tasks scored by log-likelihood}, read from the harness's own
    results files (each task's `output_type`), not from what ingest wrote."""
    found: dict[str, set[str]] = defaultdict(set)
    for results in (DATA / "lm-eval").rglob("results_*.json"):
        document = json.loads(results.read_text(encoding="utf-8"))
        model = document.get("model_name") or ""
        for task, config in (document.get("configs") or {}).items():
            if config.get("output_type") in ("loglikelihood", "loglikelihood_rolling", "multiple_choice"):
                found[model].add(task.replace("_", "-"))
    return dict(found)


def test_e_no_sampling_setting_is_missing_from_a_task_that_samples_nothing(corpus):
    _, site = corpus
    tasks = likelihood_tasks(DATA)
    assert tasks["Qwen/Qwen3-8B"] == {"negotiationtom-belief", "negotiationtom-desire"}
    assert "asdiv" in tasks["meta-llama/Meta-Llama-3-8B-Instruct"]
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    rows = 0
    for m in board["models"]:
        scored = tasks.get(m["id"].split("|")[0], set())
        for tr in page(site, f"models/{m['slug']}.html").find_all("tr"):
            if not tr.attrs.get("id", "").startswith("r-") or tr.find("th").text.strip() not in scored:
                continue
            rows += 1
            assert not re.search(r"does not report[^(]*\b(temperature|max_tokens)\b", said(tr)), (m["id"], tr.text)
            assert "nothing was sampled" in said(tr), m["id"]
    assert rows == 3  # asdiv, and negotiationtom's two multiple-choice subtasks
    for rel in html_pages(site):  # nor on any other page: each task's rows are these evaluations'
        for tr in page(site, rel).find_all("tr"):
            if re.search(r"does not report[^(]*\b(temperature|max_tokens)\b", said(tr)):
                assert not any(task in tr.text for scored in tasks.values() for task in scored), (rel, tr.text)


def test_f_no_better_than_guessing_only_where_guesses_were_removed(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    unknown_seen = 0
    for model_id, doc in pages.items():
        f = evaluations[model_id]
        caption = next((c.text for c in doc.find_all("figcaption")), "")
        if not caption:
            continue
        without = sorted(task for task, t in f.tasks.items() if t["guess"] == 0)
        if not without:
            assert "0 = no better than guessing;" in caption, model_id
        elif len(without) == len(f.tasks):
            assert "no better than guessing" not in caption, model_id
            assert "the guess chance is unknown" in caption, model_id
            unknown_seen += 1
        else:
            assert all(task in caption for task in without), model_id
    assert unknown_seen
    # Inspect's Yes/No `popularity` task, whose samples carry no choices: its chance is
    # about one half, unknown to the site, and said to be unknown.
    yes_no = [m for m, f in evaluations.items() if "popularity" in f.tasks and f.tasks["popularity"]["guess"] == 0]
    assert "google/gemini-2.5-pro|default|default" in yes_no
    for model_id in yes_no:
        assert "no better than guessing;" not in said(pages[model_id])


def test_g_one_relationship_per_evaluation(corpus):
    _, site = corpus
    for model_id, doc in model_pages(site).items():
        setup = doc.find("dl", cls="facts")
        terms = [n.text for n in setup.find_all("dt")]
        stated = setup.find_all("dd")[terms.index("Evaluator relationship")].text
        own_rows = [r for r in doc.find_all("tr") if "this leaderboard" in said(r)]
        assert own_rows, model_id
        for row in own_rows:
            assert f"{stated} · this leaderboard" in row.text, (model_id, stated, row.text)
        assert stated != "—", model_id


def recorded_limit(f: Facts) -> int | None:
    """The run's output-token limit under any harness's spelling, as its files record it."""
    return next((f.generation_args[k] for k in ("max_tokens", "max_new_tokens", "max_gen_toks", "max_output_tokens")
                 if isinstance(f.generation_args.get(k), int)), None)


def test_h_token_analyses_give_the_runs_own_reasons(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    seen = {"none": 0, "cap": 0}
    for model_id, doc in pages.items():
        limit, text = recorded_limit(evaluations[model_id]), doc.text
        if "Token hazard" not in text:
            continue
        if "the run recorded no output-token limit" in text:
            assert limit is None, model_id
            seen["none"] += 1
        if limit is not None and limit <= 16:
            assert (f"No budget sweep: the run's limit of {limit} output token{'' if limit == 1 else 's'} caps the "
                    "answer itself") in text, model_id
            seen["cap"] += 1
        if "The last bin runs to the token limit" in text:
            assert limit is not None and limit > 32, model_id
        assert "top edge" not in text, model_id
    assert seen["none"] and seen["cap"] >= 10  # Inspect logs without a limit; HELM's one-token answers


def test_i_every_recorded_setting_is_visible(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    newline_seen = 0
    for model_id, doc in pages.items():
        setup = doc.find("dl", cls="facts")
        terms, values = [n.text for n in setup.find_all("dt")], [n.text for n in setup.find_all("dd")]
        shown = dict(zip(terms, values))
        for key, value in evaluations[model_id].generation_args.items():
            assert shown[key].strip(), (model_id, key, value)
            if value == ["\n"]:
                assert shown[key] == '"\\n"', (model_id, shown[key])
                newline_seen += 1
    assert newline_seen  # HELM's stop_sequences


def test_j_no_band_on_thin_evidence(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    thin_seen = 0
    for model_id, doc in pages.items():
        short = sorted(t for t, one in evaluations[model_id].tasks.items() if one["samples"] < 20)
        if not short:
            continue
        assert not [n for n in doc.iter() if any(c.startswith("band-score_per_token") for c in n.classes)], model_id
        assert not [t for t in SPT_TEXTS if t in said(doc)], model_id
        if re.search(r"Score/token \d", doc.text):
            assert f"No band: fewer than 20 samples on {', '.join(short)}." in doc.text, model_id
            thin_seen += 1
    assert thin_seen >= 5


def task_pages(site: Path):
    """(task, page) of each task page, the task as its heading names it."""
    for rel in html_pages(site):
        if rel.startswith("tasks/"):
            doc = page(site, rel)
            yield doc.find("h1").text.strip(), doc


def test_k_trials_in_epochs_are_counted_as_samples_times_epochs(corpus):
    data, site = corpus
    evaluations, pages = facts(data), model_pages(site)
    seen = 0
    for model_id, doc in pages.items():
        for task, one in evaluations[model_id].tasks.items():
            trials, samples = int(one["total"]), int(one["samples"])
            if trials > samples and trials % samples == 0:
                noun = "sample" if samples == 1 else "samples"
                assert f"{trials:,} ({samples:,} {noun} × {trials // samples} epochs)" in doc.text, (model_id, task)
                seen += 1
    assert seen >= 2  # the agentic log's 1 sample × 6 epochs, log_streaming's 2 samples × 2 epochs


def test_l_task_pages_speak_of_ties_only_where_they_rank(corpus):
    data, site = corpus
    evaluations = facts(data)
    samples: dict[str, list[int]] = defaultdict(list)
    for f in evaluations.values():
        for task, one in f.tasks.items():
            samples[task].append(int(one["samples"]))
    unranked = alone = 0
    for task, doc in task_pages(site):
        if task not in samples:
            continue
        lede = doc.find("p", cls="lede").text
        counted = len(samples[task])
        assert lede.startswith(f"{counted} model{' has a result' if counted == 1 else 's have results'} on this task")
        ranked = sum(1 for n in samples[task] if n >= 20)
        if not ranked:
            assert "statistically tied" not in lede, task
            assert "none rests on 20 samples or more, so none is ranked here." in lede, task
            unranked += 1
        elif ranked == 1:
            assert "statistically tied" not in lede and "it is ranked alone" in lede, task
            caption = doc.by_id("task-table-caption").text
            assert caption.startswith("The one ranked model.") and "tied" not in caption, task
            alone += 1
        else:
            assert "statistically tied" in lede, task
    assert unranked >= 5 and alone >= 1


def test_m_matrix_cells_rank_only_what_is_ranked(corpus):
    data, site = corpus
    evaluations = facts(data)
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    by_slug = {f"{m['slug']}.html": m["id"] for m in board["models"]}
    ranked_on: dict[str, int] = defaultdict(int)
    for f in evaluations.values():
        for task, one in f.tasks.items():
            ranked_on[task] += one["samples"] >= 20
    checked = preliminary = 0
    for rel in html_pages(site):
        doc = page(site, rel)
        table = doc.by_id("matrix")
        if table is None:
            continue
        tasks = [th.text.strip() for th in table.find("thead").find_all("th")][2:]
        for tr in table.find("tbody").find_all("tr"):
            model_id = next(v for k, v in by_slug.items() if tr.find("a").attrs["href"].endswith(k))
            for task, td in zip(tasks, tr.find_all("td")[1:]):
                title = td.attrs.get("title", "")
                assert "rank 0 " not in title, (task, model_id, task)
                if not title:
                    continue
                if evaluations[model_id].tasks[task]["samples"] < 20:
                    assert "preliminary on this task" in title and "preliminary" in td.text, (model_id, task)
                    preliminary += 1
                else:
                    assert re.search(rf"rank \d+(–\d+)? of {ranked_on[task]} on this task", title), (title, task)
                checked += 1
    assert checked and preliminary


@pytest.mark.parametrize("boards", ["", '[[boards]]\nname = "popularity"\ntasks = ["popularity"]\n'])
def test_n_headline_truncation_is_the_boards_or_says_why_not(corpus, boards, tmp_path):
    data, site = corpus
    if boards:  # a first board of one task: most evaluations have none of it
        (tmp_path / "site.toml").write_text(boards, encoding="utf-8")
        site = tmp_path / "site"
        cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"),
             "--config", str(tmp_path / "site.toml"), "--quiet")
    evaluations, pages = facts(data), model_pages(site)
    board_tasks = set(json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))["config"]["tasks"])
    without, shares = 0, 0
    for model_id, doc in pages.items():
        box = next(n for n in doc.iter() if n.attrs.get("aria-labelledby") == "h-cost")
        on_board = [one for task, one in evaluations[model_id].tasks.items() if task in board_tasks]
        if not on_board:
            assert "where it has no result" in box.text and "—" not in box.text, model_id
            without += 1
            continue
        assert "where it has no result" not in box.text, model_id
        shown = re.search(r"Truncated: (\d+\.\d)% of trials", box.text)
        if shown:
            share = sum(one["truncated"] for one in on_board) / sum(one["total"] for one in on_board)
            assert float(shown.group(1)) == pytest.approx(100 * share, abs=0.05), model_id
            shares += 1
    assert shares >= 1 and (without >= 20 if boards else without == 0)


def test_o_difficulty_curves_claim_every_model_only_where_each_has_the_coordinate(corpus):
    data, site = corpus
    evaluations = facts(data)
    claim = re.compile(r"C_P estimate at each level of (\S+) for (?:(every model on this task)|the (\d+) models? "
                       r"whose trials carry \S+ as a difficulty coordinate \(of the (\d+) listed\)|(\d+) of the (\d+) models)")
    every = fewer = 0
    for task, doc in task_pages(site):
        counted = sum(1 for f in evaluations.values() if task in f.tasks)
        tables = [t for t in doc.find_all("table") if t.attrs.get("id", "").startswith("curve-table-")]
        claims = claim.findall(doc.text)
        assert len(claims) == len(tables), task
        for table, (param, all_of_them, some, listed, _, of) in zip(tables, claims):
            rows = len(table.find("tbody").find_all("tr"))
            if all_of_them:
                assert rows == counted, (task, param, rows, counted)
                every += 1
            elif some:
                assert (int(some), int(listed)) == (rows, counted), (task, param)
                fewer += 1
            else:
                assert int(of) == rows, (task, param)
    assert every and fewer


def test_p_a_models_evaluations_are_leaderboard_rows_only_where_ranked(corpus):
    data, site = corpus
    evaluations = facts(data)
    board_tasks = set(json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))["config"]["tasks"])
    by_model: dict[str, list[Facts]] = defaultdict(list)
    for key, f in evaluations.items():
        by_model[key.split("|")[0]].append(f)
    checked = 0
    for rel in html_pages(site):
        if not rel.startswith("models/"):
            continue
        doc = page(site, rel)
        lede = doc.find("p", cls="lede")
        if lede is None or not lede.text.startswith("This model was evaluated with"):
            continue
        mine = by_model[doc.find("h1").text.strip()]
        ranked = sum(1 for f in mine if board_tasks <= set(f.tasks)
                     and all(f.tasks[t]["samples"] >= 20 for t in board_tasks))
        assert lede.text.startswith(f"This model was evaluated with {len(mine)} combinations"), rel
        assert ("Each is a separate row on the leaderboard" in lede.text) == (ranked == len(mine)), rel
        assert ("None of them is ranked" in lede.text) == (ranked == 0), rel
        assert ("can be tied with each other" in doc.text) == (ranked > 1), rel
        checked += 1
    assert checked >= 3


def test_q_the_pairwise_page_counts_what_it_compares(corpus):
    data, site = corpus
    board_tasks = set(json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))["config"]["tasks"])
    ranked = sum(1 for f in facts(data).values() if board_tasks <= set(f.tasks)
                 and all(f.tasks[t]["samples"] >= 20 for t in board_tasks))
    assert ranked == 0  # no evaluation has every task of the corpus
    lede = page(site, "pairwise.html").find("p", cls="lede").text
    assert "top 0" not in lede and "this build ranks none" in lede, lede


def test_q_the_pairwise_page_with_one_ranked_model_compares_nothing(tmp_path):
    """One ranked evaluation has no opponent: no "top 1 of 1" and no 1 x 1 matrix of "·"."""
    from conftest import build_site
    from helpers_points import point, write_csv

    rows = [point(model="solo", base_task=t, params={}, total=100, correct=60) for t in ("a", "b")]
    rows.append(point(model="gap", base_task="a", params={}, total=100, correct=40))
    write_csv(tmp_path / "data" / "points" / "p.csv", rows)
    built = build_site(tmp_path / "data", tmp_path / "site", tmp_path / "cache")
    assert sum(1 for m in built.leaderboard["models"] if m["rank"] is not None) == 1
    doc = page(built.out, "pairwise.html")
    lede = doc.find("p", cls="lede").text
    assert "top 1" not in lede and "this build ranks only one" in lede, lede
    assert doc.by_id("win-rate-table") is None and "Fewer than two ranked models" in doc.text


def test_p_a_model_with_one_ranked_evaluation_says_which(tmp_path):
    """Of a model's three evaluations one is ranked, one preliminary, one incomplete: the
    lede counts them, and each unranked row says why (not "incomplete" for the preliminary one)."""
    from conftest import build_site
    from helpers_points import point, write_csv

    rows = [point(model="duo", sampler=s, base_task=t, params={}, total=total, correct=total // 2, samples=total)
            for s, tasks, total in (("full", "ab", 100), ("thin", "ab", 10), ("half", "a", 100)) for t in tasks]
    rows += [point(model="solo", base_task=t, params={}, total=100, correct=70, samples=100) for t in "ab"]
    write_csv(tmp_path / "data" / "points" / "p.csv", rows)
    built = build_site(tmp_path / "data", tmp_path / "site", tmp_path / "cache")
    doc = page(built.out, "models/duo.html")
    lede = doc.find("p", cls="lede").text
    assert "1 of them is a ranked row on the leaderboard with its own ReasonScore and interval; " \
           "the other 2 are not ranked there." in lede, lede
    assert "can be tied with each other" not in doc.text
    rows_of = {row_cells(tr)[1].text: tr.text for tr in doc.by_id("evaluation-list").find_all("tr")[1:]}
    assert any("sampler thin" in k and "preliminary: fewer than 20 samples on a, b" in v for k, v in rows_of.items())
    assert any("sampler half" in k and "incomplete: missing b" in v for k, v in rows_of.items())
    titles = [n.attrs.get("title") for n in doc.iter() if "asterisk" in n.classes]
    assert sorted(titles) == ["incomplete: no rank", "preliminary: fewer than 20 samples on a, b"]

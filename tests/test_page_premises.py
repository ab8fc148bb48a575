"""Sentences whose premise a lab's real data can break, read on the built pages as a reader
reads them: real Inspect logs (the `popularity` eval set, gpt-4o-mini's examples, a log of
2 samples x 2 epochs, a 1-sample `browser` log, a 5-sample `piqa` log) ingested together and
built on two boards, a one-task front board (`popularity`) and a second one adding
`security_guide`, which gpt-4o-mini has on 16 samples only (preliminary there).

Each premise is computed here from the trials files ingest wrote, never from the build's own
statistics:

a. a model page says why it is not ranked on each board: the tasks it misses, or (having them
   all) the tasks with too few samples, never "missing" with nothing after it;
b. the causes given for a wide ReasonScore interval come from the board's tasks the score is
   computed over, not from the model's other tasks;
c. a task page counts as "not recording output tokens" only the models whose trials record
   none; those whose outputs are too short for the first bin are named as such;
d. a model page's neighbours table has a paired test on every row where the two models share
   at least 20 items on the board's task (the "—" reason is then never false);
e. counts of one read in the singular: no "1 results", "1 benchmarks", "all 1", "each of the
   1", "1 result rows", and one unranked evaluation is "it", not "each";
f. a benchmark with no card shows no risk count ("0 named by the card");
g. the average given for withholding score/token is the "tokens per trial" printed beside it,
   not a second figure for the same average;
i. a model page calls "statistically tied" no model whose paired test in its own neighbours
   table says "distinct" (gpt-4o-mini and gpt-5 on the 100 shared popularity items: intervals
   overlap, McNemar/bootstrap tells them apart);
j. the methodology page does not call the gap between a C_P estimate and its interval's
   printed midpoint slight when a published result's gap is not (the 1-sample browser log:
   estimate 0.340, printed 0.514 ± 0.486);
k. a task page orders its preliminary results "by estimate" only when it has two or more
   (the 1-sample browser log and the 5-sample piqa log are each alone on their task);
l. under `mode = "E_P"` a paired difference is not passed off as a difference of the scores
   shown: the paired test always compares C_P (SAMPLES.md section 5), so the board's "vs
   next" marks, a task page's and a model page's neighbours table say C_P;
m. the interpretation guide does not say every task was generated at several difficulty
   levels when some task's trials carry no difficulty coordinate (none of these logs does),
   nor that overlapping intervals mean "the data do not say which model is better" when a
   paired test on this site tells two overlapping models apart.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_lab import cli_ok
from helpers_points import duck_rows
from helpers_site import Node, column_cell, html_pages, page, row_cells, section

INSPECT = Path(__file__).parent / "data" / "per-instance" / "inspect"
AI = INSPECT / "inspect_ai"
INPUTS = (
    AI / "log-sets" / "set",
    AI / "examples" / "scanner" / "logs" / "2025-09-23T08-09-58-04-00_popularity_DN2wbX2ZvACsBpjwptzBRo.eval",
    AI / "examples" / "scanner" / "logs" / "2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval",
    AI / "tests" / "log" / "test_eval_log" / "log_streaming.eval",
    AI / "tests" / "analysis" / "test_logs" / "2025-05-12T20-27-36-04-00_browser.json",
    INSPECT / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened" / "piqa.json",
)
BOARDS = {"Popularity": ["popularity"], "Security and popularity": ["popularity", "security_guide"]}
MIN_SAMPLES = 20
FIRST_EDGE = 32


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    base = tmp_path_factory.mktemp("premises")
    data, site = base / "data", base / "site"
    cli_ok("ingest", *map(str, INPUTS), "--data", str(data))
    config = base / "site.toml"
    config.write_text("".join(f'[[boards]]\nname = "{name}"\ntasks = {tasks!r}\n'.replace("'", '"')
                              for name, tasks in BOARDS.items()), encoding="utf-8")
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(base / "cache"),
         "--config", str(config), "--quiet")
    return data, site


def trials(data: Path) -> dict[str, dict[str, dict]]:
    """Per model and task, from the trials files: its samples (distinct items), whether any
    trial records output tokens, the longest output, and the item ids."""
    files = sorted(str(p) for p in (data / "trials").rglob("*.parquet"))
    _, rows = duck_rows(
        """SELECT model, base_task, count(DISTINCT (params, sample_id)), count(tokens), max(tokens),
                  list(DISTINCT sample_id), count(*), coalesce(sum(tokens), 0)
           FROM read_parquet(?, union_by_name = true) GROUP BY ALL""", [files])
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for model, task, samples, with_tokens, longest, items, total, tokens in rows:
        out[model][task] = {"samples": samples, "tokens": with_tokens > 0, "longest": longest, "items": set(items),
                            "per_trial": tokens / total}
    return dict(out)


def model_page(site: Path, model: str) -> Node:
    """The page of the model's one evaluation, by the slug the build published."""
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    slug = next(m["slug"] for m in board["models"] if m["model"] == model)
    return page(site, f"models/{slug}.html")


def model_pages(lab, having: str | None = None) -> Iterator[tuple[str, dict[str, dict], Node]]:
    """(model, its trials by task, its page) of each model, or of those with task `having`."""
    data, site = lab
    for model, tasks in trials(data).items():
        if having is None or having in tasks:
            yield model, tasks, model_page(site, model)


def test_a_each_board_says_why_it_does_not_rank(lab):
    preliminary_seen = 0
    for model, tasks, doc in model_pages(lab):
        standings = {li.find("a").text: li.text for li in doc.by_id("boards").parent.find_all("li")
                     if li.parent is not None and "board-standings" in li.parent.classes}
        assert set(standings) == set(BOARDS), model
        for board, board_tasks in BOARDS.items():
            line = standings[board]
            missing = [t for t in board_tasks if t not in tasks]
            thin = [t for t in board_tasks if t in tasks and tasks[t]["samples"] < MIN_SAMPLES]
            assert "(missing )" not in line, line
            if missing:
                assert f"missing {', '.join(missing)}" in line, line
            elif thin:
                assert "preliminary" in line and ", ".join(thin) in line and "missing" not in line, line
                preliminary_seen += 1
            else:
                assert line.startswith(f"{board}: rank "), line
        rank_box = next(n for n in doc.iter() if n.attrs.get("aria-labelledby") == "h-rank").text
        front = BOARDS["Popularity"]
        if all(t in tasks for t in front) and any(tasks[t]["samples"] < MIN_SAMPLES for t in front):
            assert "missing any task" not in rank_box and "preliminary" in rank_box, (model, rank_box)
    assert preliminary_seen >= 2  # gpt-4o-mini on the second board, the 2-sample log on both


def test_b_width_causes_come_from_the_boards_tasks(lab):
    checked = 0
    for model, tasks, doc in model_pages(lab, "popularity"):
        width = next((p.text for p in doc.find_all("p") if p.text.startswith("Interval width:")), "")
        causes = width.split(" Here: ", 1)[1] if " Here: " in width else ""
        if "few samples" in causes:
            # The front board's score is over popularity alone.
            assert f"few samples ({tasks['popularity']['samples']} on its one task)" in causes, (model, width)
        assert not any(t in causes for t in tasks if t != "popularity"), (model, width)
        checked += 1
    assert checked >= 5


def test_c_a_task_page_tells_unrecorded_tokens_from_short_outputs(lab):
    data, site = lab
    found = trials(data)
    listed = [m for m, tasks in found.items() if "popularity" in tasks]
    untold = [m for m in listed if not found[m]["popularity"]["tokens"]]
    # No bin: the longest output's power of two is at most the first edge (no token limit recorded).
    short = [m for m in listed if found[m]["popularity"]["tokens"] and found[m]["popularity"]["longest"] < 2 * FIRST_EDGE]
    assert short, "the fixture has models whose outputs are too short for a bin"
    text = page(site, "tasks/popularity.html").text
    said = re.search(r"(\d+) of the \d+ models listed (?:has|have) no hazard on this task: their trials do not "
                     r"record output tokens", text)
    assert (int(said.group(1)) if said else 0) == len(untold), text
    assert f"{len(short)} of the {len(listed)} models listed record output tokens but have no hazard" in text


def test_d_neighbours_with_shared_items_are_all_tested(lab):
    found = trials(lab[0])
    checked = 0
    for model, tasks, doc in model_pages(lab):
        table = doc.by_id("neighbours-caption")
        if table is None:
            continue
        table = table.parent
        for row in table.find("tbody").find_all("tr"):
            other = row_cells(row)[1].text
            shared = len(tasks["popularity"]["items"] & found[other]["popularity"]["items"])
            p = column_cell(table, row, "p").text
            if shared >= MIN_SAMPLES:
                assert p != "—", (model, other, shared)
            checked += 1
    assert checked >= 6


def test_e_counts_of_one_are_singular(lab):
    _, site = lab
    plural_of_one = re.compile(r"\b(all|each of the) 1 results?\b|\b1 (results|benchmarks|result rows)\b")
    for rel in html_pages(site):
        text = page(site, rel).text
        assert not plural_of_one.search(text), (rel, plural_of_one.search(text).group(0))
        for n, verb in re.findall(r"(\d+) evaluations? (?:is|are) not ranked on this board[^:]*: (each|it) misses", text):
            assert (verb == "it") == (n == "1"), (rel, n, verb)
    index = page(site, "index.html").text
    assert "1 evaluation is not ranked on this board: it misses" in index  # the piqa log's


def test_f_no_risk_count_without_a_card(lab):
    _, site = lab
    doc = page(site, "benchmarks/popularity.html")
    assert "no benchmark card" in doc.text
    risks = next(n for n in doc.iter() if n.attrs.get("aria-labelledby") == "h-risks").text
    assert "named by the card" not in risks and not re.search(r"\b0\b", risks), risks


def test_g_the_withheld_reason_gives_the_printed_average(lab):
    checked = 0
    for model, tasks, doc in model_pages(lab, "popularity"):
        box = next(n for n in doc.iter() if n.attrs.get("aria-labelledby") == "h-cost").text
        reason = re.search(r"answers average ([\d.,]+) tokens?", box)
        if reason is None:
            continue
        # The front board's one task: its average output tokens per trial, rounded as printed.
        shown = f"{round(tasks['popularity']['per_trial']):,}"
        assert reason.group(1) == shown and re.search(rf"\b{shown} tokens? per trial", box), (model, box)
        checked += 1
    assert checked >= 3


def test_h_a_board_with_fewer_than_two_ranked_rows_explains_no_tie_marks(lab):
    """A board's table legend explains the tie marks and rank ranges only where two ranked
    rows can carry them (the real corpus ranks fewer than two on one of its boards here)."""
    _, site = lab
    counts = []
    for rel in html_pages(site):
        if rel != "index.html" and not rel.startswith("boards/"):
            continue
        doc = page(site, rel)
        caption = doc.by_id("leaderboard-caption").text
        ranked = int(re.match(r"(\d+) ranked of", caption).group(1))
        assert ("≈ tied" in caption) == (ranked > 1) == ("Rank ranges" in caption), (rel, caption)
        # Nor does the page's opening or its "How the score is computed" explain them.
        lede = doc.find("p", cls="lede").text
        method = doc.find("details", cls="method").text
        assert ("≈ tied" in lede) == (ranked > 1) == ("share a rank range" in method), (rel, lede, method)
        counts.append(ranked)
    assert min(counts) < 2 <= max(counts)


def test_i_no_model_is_called_tied_that_its_paired_test_tells_apart(lab):
    _, site = lab
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    ranked = {m["label"]: m["reasonscore"] for m in board["models"] if m["rank"] is not None}
    apart_seen = 0
    for m in board["models"]:
        if m["rank"] is None:
            continue
        doc = page(site, f"models/{m['slug']}.html")
        caption = doc.by_id("neighbours-caption")
        if caption is None:
            continue
        table = caption.parent
        me = m["reasonscore"]
        apart = []
        for row in table.find("tbody").find_all("tr"):
            other = row_cells(row)[1].text
            them = ranked.get(other)
            overlap = them is not None and not (them["ci_low"] > me["ci_high"] or me["ci_low"] > them["ci_high"])
            if overlap and column_cell(table, row, "Paired verdict").text == "distinct":
                apart.append(other)
        if not apart:
            continue
        apart_seen += 1
        rank_box = next(n for n in doc.iter() if n.attrs.get("aria-labelledby") == "h-rank").text
        ties = section(doc, "ties").text
        assert "Statistically tied with" not in rank_box, (m["label"], rank_box)
        overlaps = int(rank_box.split("overlaps ", 1)[1].split(" ", 1)[0])
        told = ("the two" if overlaps == 1 else f"all {overlaps} of them" if len(apart) == overlaps
                else f"{len(apart)} of them")
        assert f"tells {told} apart." in rank_box, (m["label"], rank_box)
        assert "(statistically tied)" not in ties, (m["label"], ties)
        assert all(name in ties.split("The paired test", 1)[1] for name in apart), (m["label"], ties)
    assert apart_seen >= 2  # gpt-4o-mini and gpt-5, each with the other


def test_j_methodology_does_not_call_a_wide_estimate_gap_slight(lab):
    _, site = lab
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    gap = max(abs(t["estimate"] - (t["low"] + t["high"]) / 2)
              for m in board["models"] for t in m["tasks"].values() if t.get("estimate") is not None)
    assert gap > 0.1  # the 1-sample logs
    text = " ".join(page(site, "methodology.html").text.split())
    assert "slightly off the midpoint" not in text
    assert "far below it on a task with few" in text


def test_k_one_preliminary_result_is_not_said_to_be_ordered(lab):
    _, site = lab
    counts = []
    for rel in html_pages(site):
        if not rel.startswith("tasks/"):
            continue
        caption = page(site, rel).by_id("preliminary-caption")
        if caption is None:
            continue
        rows = len(caption.parent.find("tbody").find_all("tr"))
        assert ("ordered by estimate" in caption.text) == (rows > 1), (rel, caption.text)
        counts.append(rows)
    assert 1 in counts


def test_l_paired_differences_name_c_p_under_another_estimator(lab, tmp_path):
    data, _ = lab
    site = tmp_path / "site"
    config = tmp_path / "site.toml"
    config.write_text('mode = "E_P"\n' + "".join(f'[[boards]]\nname = "{name}"\ntasks = {tasks!r}\n'.replace("'", '"')
                                                 for name, tasks in BOARDS.items()), encoding="utf-8")
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"),
         "--config", str(config), "--quiet")
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["config"]["mode"] == "E_P"
    seen = 0
    for rel in ["index.html", "tasks/popularity.html"] + [f"models/{m['slug']}.html" for m in board["models"]
                                                         if m["rank"] is not None]:
        text = " ".join(page(site, rel).text.split())
        for said in re.findall(r"paired test on [\d,]+ shared items \(\w+\), (difference[^+\-−]*)[+\-−]", text):
            assert "C_P" in said, (rel, said)
            seen += 1
        if "Paired: the " in text:
            assert "Paired: the difference of the C_P ReasonScores" in text, rel
            seen += 1
        if "comes from a paired test" in text:
            assert "its difference is of C_P scores, not of the E_P scores shown" in text, rel
    assert seen >= 6


def test_m_the_guide_claims_no_difficulty_levels_and_no_overlap_verdict_the_data_refute(lab):
    data, site = lab
    files = sorted(str(p) for p in (data / "trials").rglob("*.parquet"))
    _, rows = duck_rows("SELECT base_task, bool_and(params = '{}') FROM read_parquet(?, union_by_name = true) "
                        "GROUP BY ALL", [files])
    assert any(flat for _, flat in rows)
    pairwise = json.loads((site / "data" / "pairwise.json").read_text(encoding="utf-8"))
    board = {m["id"]: m["reasonscore"] for m in
             json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))["models"]}
    apart = [e for entries in pairwise["paired"].values() if isinstance(entries, list) for e in entries
             if e["significant"] and e["a"] in board and e["b"] in board
             and board[e["a"]]["ci_low"] is not None and board[e["b"]]["ci_low"] is not None
             and not (board[e["a"]]["ci_low"] > board[e["b"]]["ci_high"]
                      or board[e["b"]]["ci_low"] > board[e["a"]]["ci_high"])]
    text = " ".join(page(site, "guide.html").text.split())
    assert "Each task is generated at several difficulty levels" not in text
    if apart:
        assert "statistically tied: the data do not say which model is better" not in text


def test_n_the_six_estimators_claim_nothing_about_truncation_it_was_not_recorded(tmp_path):
    """Real lm-eval sample files (no stop reasons, no token counts): the model page's table of
    the six estimators does not say it shows "how much the truncation assumption matters"
    when the harness recorded no truncation (evals.json `observed.truncation` false); it says
    so, and that E_I, E_P and E_O then agree, which the table's own cells must show."""
    data, site = tmp_path / "data", tmp_path / "site"
    cli_ok("ingest", str(Path(__file__).parent / "data" / "per-instance" / "lm-eval"), "--data", str(data))
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"), "--quiet")
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    blind = {(e["model"], e["template"], e["sampler"]) for e in evals if (e.get("observed") or {}).get("truncation") is False}
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    checked = 0
    for m in board["models"]:
        if (m["model"], m["template"], m["sampler"]) not in blind:
            continue
        doc = page(site, f"models/{m['slug']}.html")
        note = " ".join(section(doc, "estimators").text.split())
        assert "How much the truncation assumption matters" not in note, (m["slug"], note)
        assert "not recorded by" in note and "E_I, E_P and E_O agree" in note, (m["slug"], note)
        for t in m["tasks"].values():
            assert t["modes"]["E_I"] == t["modes"]["E_P"] == t["modes"]["E_O"]
        checked += 1
    assert checked >= 3


def test_o_the_scale_does_not_say_every_answer_right_is_1000(lab):
    """The board's lede said "from 0 to 1000 (1000: every answer right)", and the matrix's
    "1 (1: every answer right)". C_P allows for chance with Wilson centres: a task answered
    right every time scores under 1, far under on few samples (in the real logs 5 of 5
    scores 0.562, 1 of 1 0.340), so a reader would take a perfect run for a flawed one.
    Checked against the real logs' task results answered right every time."""
    _, site = lab
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    perfect = [t["estimate"] for m in board["models"] for t in m["tasks"].values()
               if t["total"] and t["correct"] == t["total"] and t["estimate"] is not None]
    assert perfect and max(perfect) < 1
    for name in ("index.html", "matrix.html"):
        text = " ".join(page(site, name).text.split())
        assert "every answer right)" not in text and "1000: every answer" not in text and "(1: every" not in text
        if name == "index.html":
            assert "every answer right comes close to 1000 on many samples and stays lower on few" in text

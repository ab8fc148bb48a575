-- The per-sample analyses (SAMPLES.md section 6), in two steps.
--
-- The store sums each (evaluation, task)'s trials once, as they are stored
-- (store/trialsummary.py): the `sum_*` statements, over two relations it provides,
--   analysis_tasks (et, model, template, sampler, base_task, token_limit, answer_cap): each
--                   (evaluation, task) with its number `et`, the run's recorded output-token
--                   limit (NULL: none) and a recorded limit that only caps an answer;
--   analysis_trials (et, point, sample, epoch, correct, truncated, options, tokens,
--                    compressed): one row per trial, its (evaluation, task), point and
--                    sample as numbers.
-- Every grouping of trials is by those numbers; the names join the few result rows. Their
-- rows are kept in the PointsDB (trial_counts, trial_outcomes, trial_budgets) with the
-- trials they sum, and the statistics read them through `analysis_tasks` and three
-- relations of the same columns (analysis_counts, analysis_outcomes, analysis_budgets):
-- the other statements, which read no trial.
-- The first block holds the design-effect macros; every later block, from its "-- name:"
-- line, is one named statement. Values are bound parameters, never formatted in.

-- SAMPLES.md section 2, one indicator of one point, from exact integer sums over the point's
-- samples: c samples, n trials, y trials with the indicator, syy = sum y_i^2,
-- sym = sum y_i m_i, smm = sum m_i^2. With p = y/n, sum_i (y_i - m_i p)^2 = s / n^2 where
-- s = n^2 syy - 2 n y sym + y^2 smm, an exact integer (HUGEINT), so the result does not
-- depend on the order DuckDB's threads add anything in; V_cluster / V_srs is then
-- c/(c-1) * s / (n y (n - y)). NULL when the indicator does not vary (it says nothing).
CREATE OR REPLACE TEMP MACRO indicator_deff(c, n, y, syy, sym, smm) AS
    CASE WHEN y <= 0 OR y >= n THEN NULL
         WHEN c = 1 THEN n::DOUBLE / c
         ELSE least(greatest(
                  (c::DOUBLE / (c - 1)) *
                  (n::HUGEINT * n * syy - 2 * n::HUGEINT * y * sym + y::HUGEINT * y * smm)::DOUBLE
                  / (n::DOUBLE * y * (n - y)),
                  1.0), n::DOUBLE / c) END;

-- The point's design effect: the largest over the indicators that vary, else the mean
-- number of trials per sample (nothing shows that the epochs disagree: count samples).
CREATE OR REPLACE TEMP MACRO design_effect(c, n, deff_correct, deff_truncated) AS
    coalesce(greatest(deff_correct, deff_truncated), n::DOUBLE / c);

-- The hazard's top edge (SAMPLES.md section 6): the run's token limit, else the largest power
-- of two that the longest output reached (1 for outputs of no tokens).
CREATE OR REPLACE TEMP MACRO top_edge(token_limit, longest) AS
    coalesce(token_limit, (2 ** floor(log2(greatest(longest, 1))))::BIGINT);

-- name: sum_counts
-- Per (evaluation, task), its trials counted by the hazard's bin of output tokens (edges at
-- 32, 64, ...: NULL under 32 tokens or without a count), by whether they failed and whether
-- they record no output tokens (`untold`), with those recording output text and the longest
-- output: what `recorded` and `hazard` read.
SELECT et, CASE WHEN tokens >= 32 THEN floor(log2(tokens / 32.0))::BIGINT END AS bin, NOT correct AS failed,
       tokens IS NULL AS untold, count(*) AS trials, count(compressed) AS with_text, max(tokens) AS longest
FROM analysis_trials GROUP BY ALL

-- name: sum_outcomes
-- Quartiles of bits per output token (8 * compressed / tokens) and of the compressed size,
-- per (evaluation, task, outcome). A trial without output text, without a token count or
-- with zero tokens is left out of the measure it cannot give, and counted apart.
-- The outcome is grouped as a number (1, 2, 3: its name's place in alphabetical order), named
-- once per group (by `compression`) rather than once per trial.
SELECT et, CASE WHEN truncated THEN 3 WHEN correct THEN 1 ELSE 2 END AS outcome,
       count(*) AS trials,
       count(*) FILTER (WHERE compressed IS NOT NULL AND tokens <> 0) AS bits_trials,
       quantile_cont(8.0 * compressed::DOUBLE / nullif(tokens, 0), [0.25, 0.5, 0.75]) AS bits,
       count(compressed) AS size_trials,
       quantile_cont(compressed::DOUBLE, [0.25, 0.5, 0.75]) AS size
FROM analysis_trials GROUP BY et, outcome

-- name: sum_budgets
-- The budget sweep at the five budgets L/16, L/8, L/4, L/2, L (levels 0 to 4; stats/budget.py
-- DIVISORS): a trial with more output tokens than the budget counts as truncated (and so not
-- correct, and out of the guess accumulator). `k` is how many of the budgets cut a trial
-- short (the smallest first), so at level j it is cut when k > j. Trials are summed into
-- points (the counts at each level, and the guess accumulator as ingest sums it, INGEST.md
-- section 2), and into samples only for the points with epochs: a point whose every trial is
-- epoch 1 has one trial per sample (the store refuses a trial given twice), so its sums of
-- squares and products over samples (the design effect's exact integer sums) are its counts.
-- Then each point becomes one row per level, shrunk to its effective counters (SAMPLES.md
-- section 2), and summed per task (with the limit it was cut at): the estimator is applied
-- by `budget`.
-- Only (evaluation, task) pairs that have a limit and no trial without its tokens (found
-- among those few trials, not by counting every trial of every pair).
WITH usable AS (
    SELECT et, token_limit FROM analysis_tasks
    WHERE token_limit IS NOT NULL AND et NOT IN (SELECT et FROM analysis_trials WHERE tokens IS NULL)
), cut AS (
    SELECT t.et, t.point, t.sample, t.epoch, t.options, t.correct, t.truncated,
           (t.tokens * 16 > u.token_limit)::INTEGER + (t.tokens * 8 > u.token_limit)::INTEGER
           + (t.tokens * 4 > u.token_limit)::INTEGER + (t.tokens * 2 > u.token_limit)::INTEGER
           + (t.tokens > u.token_limit)::INTEGER AS k
    FROM analysis_trials t JOIN usable u USING (et)
), cut_counts AS (
    -- Trials alike in all that the point sums read, counted once: a few groups per point go
    -- through the fifteen filtered sums instead of every trial (the guess accumulator sums
    -- m copies of 1/options as m * (1/options): the same sum but for floating-point rounding,
    -- which its 9 decimals absorb as they absorb the order DuckDB's threads add in).
    SELECT point, et, k, correct, truncated, options, count(*) AS m, max(epoch) AS last FROM cut GROUP BY ALL
), points AS MATERIALIZED (
    SELECT point, any_value(et) AS et, max(last) = 1 AS single, sum(m)::BIGINT AS n,
           [coalesce(sum(m) FILTER (WHERE correct AND k <= 0), 0), coalesce(sum(m) FILTER (WHERE correct AND k <= 1), 0),
            coalesce(sum(m) FILTER (WHERE correct AND k <= 2), 0), coalesce(sum(m) FILTER (WHERE correct AND k <= 3), 0),
            coalesce(sum(m) FILTER (WHERE correct AND k <= 4), 0)]::BIGINT[] AS yc,
           [coalesce(sum(m) FILTER (WHERE truncated OR k > 0), 0), coalesce(sum(m) FILTER (WHERE truncated OR k > 1), 0),
            coalesce(sum(m) FILTER (WHERE truncated OR k > 2), 0), coalesce(sum(m) FILTER (WHERE truncated OR k > 3), 0),
            coalesce(sum(m) FILTER (WHERE truncated OR k > 4), 0)]::BIGINT[] AS yt,
           [round(coalesce(fsum(m * (1.0 / options)) FILTER (WHERE NOT truncated AND k <= 0 AND options IS NOT NULL), 0), 9),
            round(coalesce(fsum(m * (1.0 / options)) FILTER (WHERE NOT truncated AND k <= 1 AND options IS NOT NULL), 0), 9),
            round(coalesce(fsum(m * (1.0 / options)) FILTER (WHERE NOT truncated AND k <= 2 AND options IS NOT NULL), 0), 9),
            round(coalesce(fsum(m * (1.0 / options)) FILTER (WHERE NOT truncated AND k <= 3 AND options IS NOT NULL), 0), 9),
            round(coalesce(fsum(m * (1.0 / options)) FILTER (WHERE NOT truncated AND k <= 4 AND options IS NOT NULL), 0), 9)]
           AS g
    FROM cut_counts GROUP BY point
), samples AS (
    SELECT point, count(*) AS m,
           count(*) FILTER (WHERE correct AND k <= 0) AS c0, count(*) FILTER (WHERE correct AND k <= 1) AS c1,
           count(*) FILTER (WHERE correct AND k <= 2) AS c2, count(*) FILTER (WHERE correct AND k <= 3) AS c3,
           count(*) FILTER (WHERE correct AND k <= 4) AS c4,
           count(*) FILTER (WHERE truncated OR k > 0) AS t0, count(*) FILTER (WHERE truncated OR k > 1) AS t1,
           count(*) FILTER (WHERE truncated OR k > 2) AS t2, count(*) FILTER (WHERE truncated OR k > 3) AS t3,
           count(*) FILTER (WHERE truncated OR k > 4) AS t4
    FROM cut SEMI JOIN (SELECT point FROM points WHERE NOT single) USING (point)
    GROUP BY point, sample
), clustered AS (
    SELECT point, count(*)::HUGEINT AS c, sum(m::HUGEINT * m) AS smm,
           [sum(c0::HUGEINT * c0), sum(c1::HUGEINT * c1), sum(c2::HUGEINT * c2), sum(c3::HUGEINT * c3),
            sum(c4::HUGEINT * c4)] AS scc,
           [sum(c0::HUGEINT * m), sum(c1::HUGEINT * m), sum(c2::HUGEINT * m), sum(c3::HUGEINT * m),
            sum(c4::HUGEINT * m)] AS scm,
           [sum(t0::HUGEINT * t0), sum(t1::HUGEINT * t1), sum(t2::HUGEINT * t2), sum(t3::HUGEINT * t3),
            sum(t4::HUGEINT * t4)] AS stt,
           [sum(t0::HUGEINT * m), sum(t1::HUGEINT * m), sum(t2::HUGEINT * m), sum(t3::HUGEINT * m),
            sum(t4::HUGEINT * m)] AS stm
    FROM samples GROUP BY point
    UNION ALL
    SELECT point, n::HUGEINT, n::HUGEINT, yc::HUGEINT[], yc::HUGEINT[], yt::HUGEINT[], yt::HUGEINT[]
    FROM points WHERE single
), levels AS (
    SELECT p.et, k.c, p.n, unnest(range(1, 6)) AS i, p.yc, p.yt, k.scc, k.scm, k.stt, k.stm, k.smm, p.g
    FROM clustered k JOIN points p USING (point)
), effective AS (
    SELECT et, i, n, yc[i] AS correct, yt[i] AS truncated, g[i] AS guess,
           design_effect(c, n, indicator_deff(c, n, yc[i], scc[i], scm[i], smm),
                         indicator_deff(c, n, yt[i], stt[i], stm[i], smm)) AS deff
    FROM levels
), tasks AS (
    SELECT et, [16, 8, 4, 2, 1][i] AS divisor,
           sum((n / deff)::DECIMAL(38, 12))::DOUBLE AS n,
           sum((truncated / deff)::DECIMAL(38, 12))::DOUBLE AS n_t,
           sum((correct / deff)::DECIMAL(38, 12))::DOUBLE AS n_e,
           sum((guess / deff)::DECIMAL(38, 12))::DOUBLE AS g
    FROM effective GROUP BY et, i
)
SELECT t.et, u.token_limit, t.divisor, t.n, t.n_t, t.n_e, t.g FROM tasks t JOIN usable u USING (et)

-- name: compression
-- The quartiles of `sum_outcomes`, named.
SELECT a.model, a.template, a.sampler, a.base_task, ['correct', 'incorrect', 'truncated'][c.outcome] AS outcome,
       c.trials, c.bits_trials, c.bits, c.size_trials, c.size
FROM analysis_outcomes c JOIN analysis_tasks a USING (et)
ORDER BY a.model, a.template, a.sampler, a.base_task, c.outcome

-- name: recorded
-- Per (evaluation, task): its trials, how many record output tokens, how many record
-- output text (a compressed size), the run's token limit when one is recorded (a limit that
-- only caps an answer apart, as `answer_cap`), and the hazard's top edge.
SELECT a.model, a.template, a.sampler, a.base_task, r.trials, r.with_tokens, r.with_text, a.token_limit,
       a.answer_cap, top_edge(a.token_limit, r.longest) AS top
FROM (SELECT et, sum(trials)::BIGINT AS trials, coalesce(sum(trials) FILTER (WHERE NOT untold), 0)::BIGINT AS with_tokens,
             sum(with_text)::BIGINT AS with_text, max(longest) AS longest
      FROM analysis_counts GROUP BY et) r
JOIN analysis_tasks a USING (et)
ORDER BY a.model, a.template, a.sampler, a.base_task

-- name: hazard
-- Bins of output tokens with edges at 32, 64, ... below the top edge, and the top edge: the
-- run's token limit, else the largest power of two a trial reached. The last bin holds every
-- trial at or past its lower edge (ending at the limit or, with reasoning tokens counted,
-- beyond it). Per bin: trials ending in it, those ending incorrect or truncated (`events`),
-- and the trials still going at its lower edge (`at_risk`, tokens >= a); the hazard is
-- events / at_risk with its Wilson interval (z95), NULL when no trial reached the bin.
WITH binned AS (
    -- Per (evaluation, task), its trials with output tokens by bin below any top edge (NULL
    -- under 32 tokens) and by whether they failed, with their longest output (`sum_counts`).
    SELECT et, bin, failed, trials, longest FROM analysis_counts WHERE NOT untold
), tops AS (
    SELECT m.et, top_edge(a.token_limit, m.longest) AS top
    FROM (SELECT et, max(longest) AS longest FROM binned GROUP BY et) m JOIN analysis_tasks a USING (et)
), sized AS (
    SELECT *, CASE WHEN top > 32 THEN ceil(log2(top / 32.0))::BIGINT ELSE 0 END AS bins FROM tops
), grid AS (
    SELECT et, top, bins, unnest(range(bins)) AS bin FROM sized
), ended AS (
    SELECT b.et, least(b.bin, s.bins - 1) AS bin, sum(b.trials)::BIGINT AS ending,
           coalesce(sum(b.trials) FILTER (WHERE b.failed), 0)::BIGINT AS events
    FROM binned b JOIN sized s USING (et)
    WHERE b.bin IS NOT NULL AND s.bins > 0
    GROUP BY ALL
), counted AS (
    SELECT g.et, g.top, g.bin,
           (32 * 2 ** g.bin)::BIGINT AS low_edge,
           CASE WHEN g.bin = g.bins - 1 THEN g.top ELSE (32 * 2 ** (g.bin + 1))::BIGINT END AS high_edge,
           coalesce(e.ending, 0) AS ending, coalesce(e.events, 0) AS events,
           sum(coalesce(e.ending, 0)) OVER (PARTITION BY g.et ORDER BY g.bin DESC)::BIGINT AS at_risk
    FROM grid g LEFT JOIN ended e USING (et, bin)
)
SELECT a.model, a.template, a.sampler, a.base_task, c.top, c.bin, c.low_edge, c.high_edge, c.ending, c.events,
       c.at_risk,
       CASE WHEN c.at_risk > 0 THEN c.events::DOUBLE / c.at_risk END AS hazard,
       CASE WHEN c.at_risk > 0 THEN wilson_low(c.events, c.at_risk, z95()) END AS low,
       CASE WHEN c.at_risk > 0 THEN wilson_high(c.events, c.at_risk, z95()) END AS high
FROM counted c JOIN analysis_tasks a USING (et)
ORDER BY a.model, a.template, a.sampler, a.base_task, c.bin

-- name: budget
-- The budget sweep's sums per (evaluation, task) and level (`sum_budgets`, cut at the run's
-- current limit) with ESTIMATOR (the site's estimator macro, substituted by the caller from
-- a whitelist) applied.
SELECT a.model, a.template, a.sampler, a.base_task, t.divisor, t.n, t.n_t, t.n_e, t.g,
       ESTIMATOR(t.n, t.n_t, t.n_e, t.g).est AS est, ESTIMATOR(t.n, t.n_t, t.n_e, t.g).low AS low,
       ESTIMATOR(t.n, t.n_t, t.n_e, t.g).high AS high
FROM analysis_budgets t JOIN analysis_tasks a ON a.et = t.et AND a.token_limit = t.token_limit
ORDER BY a.model, a.template, a.sampler, a.base_task, t.divisor DESC

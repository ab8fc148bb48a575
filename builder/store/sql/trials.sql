-- Summing trials into points (INGEST.md sections 1-3): the one place where ingest counts.
--
-- The first block (up to the first "-- name:" line) creates the tables, in a temporary
-- database file of their own, that builder/store/trials.py fills in batches; every later
-- block is one named statement.
-- Values are never formatted into this SQL.

CREATE OR REPLACE TABLE ingest_runs (
    run_idx   INTEGER NOT NULL,   -- order in which runs were read
    input_idx INTEGER NOT NULL,   -- the input's position in sorted path order (later wins)
    evaluation INTEGER NOT NULL,  -- the (model, template, sampler)'s position in sorted order
    model     VARCHAR NOT NULL,
    template  VARCHAR NOT NULL,
    sampler   VARCHAR NOT NULL,
    task      VARCHAR NOT NULL,
    metric    VARCHAR NOT NULL,
    skipped   BOOLEAN NOT NULL    -- the reader gave up on the task half-way (run.skip)
);

CREATE OR REPLACE TABLE ingest_trials (
    run_idx   INTEGER NOT NULL,
    seq       BIGINT  NOT NULL,   -- position in reading order (a later copy inside one input wins)
    sample_id VARCHAR NOT NULL,
    epoch     INTEGER NOT NULL,
    params    VARCHAR NOT NULL,
    score     DOUBLE  NOT NULL,
    truncated BOOLEAN NOT NULL,
    options   INTEGER,            -- NULL: write-in
    tokens    BIGINT,             -- NULL: not recorded
    input_tokens BIGINT,          -- NULL: not recorded
    compressed   BIGINT           -- NULL: no output text
);

-- name: insert_trials
-- The batch arrives as numpy columns; 0 options and -1 counts stand for "none".
INSERT INTO ingest_trials
SELECT run_idx, seq, sample_id, epoch, params, score, truncated, NULLIF(options, 0), NULLIF(tokens, -1),
       NULLIF(input_tokens, -1), NULLIF(compressed, -1)
FROM trial_batch

-- name: insert_runs
INSERT INTO ingest_runs
SELECT run_idx, input_idx, evaluation, model, template, sampler, task, metric, skipped FROM run_batch

-- name: resolve
-- One row per trial identity: the input later in sorted path order wins, then the later
-- copy inside it. Stored in evaluation order, so that each evaluation's trials file reads
-- only the row groups holding its rows (their min/max of `evaluation`), not every trial:
-- a scan of the whole table per file made ingest quadratic in its evaluations.
CREATE OR REPLACE TABLE ingest_kept AS
SELECT r.evaluation, r.model, r.template, r.sampler, r.task, r.metric, t.params, t.sample_id, t.epoch,
       t.score, t.truncated, t.options, t.tokens, t.input_tokens, t.compressed
FROM ingest_trials t JOIN ingest_runs r USING (run_idx)
WHERE NOT r.skipped
QUALIFY row_number() OVER (PARTITION BY r.model, r.template, r.sampler, r.task, t.params, t.sample_id, t.epoch
                           ORDER BY r.input_idx DESC, t.seq DESC) = 1
ORDER BY r.evaluation

-- name: replaced
SELECT (SELECT count(*) FROM ingest_trials JOIN ingest_runs USING (run_idx) WHERE NOT skipped)
     - (SELECT count(*) FROM ingest_kept)

-- name: run_counts
-- What each input's run contributed, for its line: samples, epochs, trials, trials with
-- partial credit, and trials a later copy replaced (the resolve rule's losers).
SELECT run_idx, count(DISTINCT sample_id) AS samples, count(DISTINCT epoch) AS epochs, count(*) AS trials,
       count(*) FILTER (WHERE score > 0 AND score < 1) AS partial, count(*) FILTER (WHERE rn > 1) AS replaced
FROM (SELECT t.run_idx, t.sample_id, t.epoch, t.score,
             row_number() OVER (PARTITION BY r.model, r.template, r.sampler, r.task, t.params, t.sample_id, t.epoch
                                ORDER BY r.input_idx DESC, t.seq DESC) AS rn
      FROM ingest_trials t JOIN ingest_runs r USING (run_idx) WHERE NOT r.skipped)
GROUP BY run_idx ORDER BY run_idx

-- name: out_of_range
-- Tasks whose per-trial values leave [0, 1] have no correctness (section 3): skipped whole.
CREATE OR REPLACE TABLE ingest_no_credit AS
SELECT model, template, sampler, task, min(metric) AS metric, count(*) AS trials,
       arg_min(score, abs(score - 0.5) * -1) AS example
FROM ingest_kept
GROUP BY model, template, sampler, task
HAVING min(score) < 0 OR max(score) > 1

-- name: no_credit
SELECT model, template, sampler, task, metric, trials, example FROM ingest_no_credit
ORDER BY model, template, sampler, task

-- name: points
-- Section 2. Guesses are summed with Kahan summation and rounded to 9 decimals, so the
-- same trials give the same bytes whatever order the threads add them in.
SELECT k.model, k.template, k.sampler, k.task AS base_task, k.params,
       count(*)                                                      AS total,
       count(*) FILTER (WHERE k.score >= 1 AND NOT k.truncated)      AS correct,
       count(*) FILTER (WHERE k.truncated)                           AS truncated,
       round(coalesce(fsum(1.0 / k.options) FILTER (WHERE NOT k.truncated AND k.options IS NOT NULL), 0), 9) AS guess,
       coalesce(sum(k.tokens), 0)::BIGINT                            AS tokens,
       count(*) FILTER (WHERE k.score > 0 AND k.score < 1)           AS partial
FROM ingest_kept k
ANTI JOIN ingest_no_credit n USING (model, template, sampler, task)
GROUP BY k.model, k.template, k.sampler, k.task, k.params
ORDER BY k.model, k.template, k.sampler, k.task, k.params

-- name: tokens_recorded
-- Whether any kept trial of an evaluation recorded its output tokens.
SELECT model, template, sampler, count(tokens) > 0 AS recorded FROM ingest_kept
GROUP BY model, template, sampler ORDER BY model, template, sampler

-- name: evaluation_trials
-- The trials file of one evaluation (SAMPLES.md section 1): every kept trial of its tasks
-- that have correctness, in the file's columns.
(SELECT k.model, k.template, k.sampler, k.task AS base_task, k.params, k.sample_id, k.epoch,
        k.score AS credit, k.score >= 1 AND NOT k.truncated AS correct, k.truncated, k.options,
        k.tokens, k.input_tokens, k.compressed
 FROM ingest_kept k ANTI JOIN ingest_no_credit n USING (model, template, sampler, task)
 WHERE k.evaluation = ?)

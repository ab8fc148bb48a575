-- The PointsDB: evaluation points keyed by their 5-D identity, and the evaluations they
-- belong to. Reported results and benchmark cards live in tables of their own
-- (see results.sql).

CREATE TABLE IF NOT EXISTS points (
    model      VARCHAR NOT NULL,
    template   VARCHAR NOT NULL,
    sampler    VARCHAR NOT NULL,
    base_task  VARCHAR NOT NULL,
    params     VARCHAR NOT NULL,   -- canonical JSON object (sorted keys, no spaces)
    total      BIGINT  NOT NULL,
    correct    BIGINT  NOT NULL,
    truncated  BIGINT  NOT NULL,
    guess      DOUBLE  NOT NULL,
    tokens     DOUBLE  NOT NULL,
    -- Distinct samples of the point (SAMPLES.md section 2): counted from its trials, else
    -- the points file's `samples` column, else `total`; and its design effect (the
    -- estimators divide total, truncated, correct and guess by it; 1 without epochs).
    samples    BIGINT  NOT NULL,
    deff       DOUBLE  NOT NULL,
    partial    BIGINT,             -- trials with partial credit (counted as not correct); NULL: no trials
    tiers      VARCHAR[] NOT NULL,
    groups     VARCHAR[] NOT NULL,
    source     VARCHAR NOT NULL,   -- file the point came from, relative to the data dir
    source_row BIGINT  NOT NULL
    -- Identity (model, template, sampler, base_task, params) is unique by construction:
    -- ingest keeps one row per identity. No index: it would only slow bulk loads.
);

-- Every validated row of every points file, before one row per identity is chosen: what
-- `points` is made from. A later ingest re-reads only the files whose content changed
-- (`point_files` holds each file's digest), replaces their rows here and chooses again,
-- so a one-file change does not re-read the other files (store/ingest.py).
CREATE TABLE IF NOT EXISTS point_rows (
    model      VARCHAR NOT NULL,
    template   VARCHAR NOT NULL,
    sampler    VARCHAR NOT NULL,
    base_task  VARCHAR NOT NULL,
    params     VARCHAR NOT NULL,
    total      BIGINT  NOT NULL,
    correct    BIGINT  NOT NULL,
    truncated  BIGINT  NOT NULL,
    guess      DOUBLE  NOT NULL,
    tokens     DOUBLE  NOT NULL,
    samples    BIGINT  NOT NULL,
    deff       DOUBLE  NOT NULL,
    partial    BIGINT,
    tiers      VARCHAR[] NOT NULL,
    groups     VARCHAR[] NOT NULL,
    source     VARCHAR NOT NULL,
    source_row BIGINT  NOT NULL
);

-- Every trial of every trials file under trials/ (SAMPLES.md section 1), as integers: the
-- points of an (evaluation, task) given by trials are derived from these rows
-- (store/trialrows.py), and the per-sample views read them. Tens of millions of trials
-- repeat a few thousand names: each trial names its point (`trial_points`: file,
-- evaluation, task, params) and its sample id (`trial_samples`) by number, so storing,
-- grouping and joining them compares integers, and each name is kept once.
CREATE TABLE IF NOT EXISTS trial_points (
    point     INTEGER NOT NULL,
    source    VARCHAR NOT NULL,   -- the trials file, relative to the data dir
    model     VARCHAR NOT NULL,
    template  VARCHAR NOT NULL,
    sampler   VARCHAR NOT NULL,
    base_task VARCHAR NOT NULL,
    params    VARCHAR NOT NULL,   -- canonical JSON object, as points.params
    tiers     VARCHAR             -- optional: the point's tier labels, ';'-separated
);

CREATE TABLE IF NOT EXISTS trial_samples (
    sample    INTEGER NOT NULL,
    sample_id VARCHAR NOT NULL
);

-- What is read after ingest, and only that: a trial's credit, input tokens and row are
-- checked and summed as its file is read (store/trialrows.py), and a trials file is read
-- again for an error message.
CREATE TABLE IF NOT EXISTS trials (
    point        INTEGER NOT NULL,
    sample       INTEGER NOT NULL,
    epoch        INTEGER NOT NULL,
    correct      BOOLEAN NOT NULL,
    truncated    BOOLEAN NOT NULL,
    options      INTEGER,
    tokens       BIGINT,
    compressed   BIGINT
);

-- What the per-sample analyses read of each (evaluation, task) of a trials file, summed
-- from its trials as they are stored (store/trialsummary.py; the `sum_*` statements of
-- analyses.sql) and removed with them, so the statistics read no trial. `task` is the
-- smallest number of the (evaluation, task)'s points (a file's points are numbered together).
CREATE TABLE IF NOT EXISTS trial_counts (
    task      INTEGER NOT NULL,
    bin       BIGINT,             -- the hazard's bin of output tokens (NULL: under 32, or none)
    failed    BOOLEAN NOT NULL,
    untold    BOOLEAN NOT NULL,   -- no output-token count
    trials    BIGINT  NOT NULL,
    with_text BIGINT  NOT NULL,   -- trials with a compressed size
    longest   BIGINT              -- the most output tokens
);

CREATE TABLE IF NOT EXISTS trial_outcomes (
    task        INTEGER NOT NULL,
    outcome     INTEGER NOT NULL, -- 1 correct, 2 incorrect, 3 truncated
    trials      BIGINT  NOT NULL,
    bits_trials BIGINT  NOT NULL,
    bits        DOUBLE[],         -- quartiles of bits per output token
    size_trials BIGINT  NOT NULL,
    size        DOUBLE[]          -- quartiles of the compressed size
);

-- The budget sweep's effective counters per level, for the run's token limit when they were
-- summed (summed again when evals.json gives another).
CREATE TABLE IF NOT EXISTS trial_budgets (
    task        INTEGER NOT NULL,
    token_limit BIGINT  NOT NULL,
    divisor     INTEGER NOT NULL,
    n           DOUBLE  NOT NULL,
    n_t         DOUBLE  NOT NULL,
    n_e         DOUBLE  NOT NULL,
    g           DOUBLE  NOT NULL
);

CREATE TABLE IF NOT EXISTS point_files (
    source VARCHAR NOT NULL,   -- relative to the data dir, as `points.source`
    digest VARCHAR NOT NULL    -- sha256 of the file's bytes and of the store's code
);

CREATE TABLE IF NOT EXISTS evaluations (
    model           VARCHAR NOT NULL,
    template        VARCHAR NOT NULL,
    sampler         VARCHAR NOT NULL,
    label           VARCHAR,
    groups          VARCHAR[] NOT NULL,
    hf_id           VARCHAR,
    organization    VARCHAR,
    relationship    VARCHAR,
    generation_args VARCHAR NOT NULL,  -- canonical JSON object
    harness         VARCHAR,
    simulated       BOOLEAN NOT NULL,
    -- evals.json `observed` (INGEST.md section 6): false when the harness recorded no
    -- stop reasons / output lengths (truncation) or no output tokens; NULL when not said.
    truncation_observed BOOLEAN,
    tokens_observed     BOOLEAN,
    -- evals.json prices (PRODUCT.md "Cost"): USD per million tokens, where and when read.
    price_in        DOUBLE,
    price_out       DOUBLE,
    price_source    VARCHAR,
    price_date      VARCHAR,
    -- evals.json `harness_scores`: per task, the harness's own headline figure
    -- ({"metric": ..., "value": ...}) as canonical JSON, shown beside ours.
    harness_scores      VARCHAR NOT NULL DEFAULT '{}',
    -- evals.json `likelihood_tasks`: tasks scored by log-likelihood, which sample nothing
    -- (no temperature or token limit applies to them).
    likelihood_tasks VARCHAR[],
    PRIMARY KEY (model, template, sampler)
);

CREATE TABLE IF NOT EXISTS meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

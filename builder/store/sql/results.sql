-- Reported results and benchmark cards: the inputs of the Evaluation Card signals
-- (EVALCARDS.md), and the queries that turn them into signals.
--
-- The first block (up to the first "-- name:" line) creates the tables; every later block
-- is one named statement that builder/store/results.py runs with bound parameters.
-- Values are never formatted into this SQL.
--
-- Population levels (builder/signals/populated.py): 0 absent or null, 1 present but empty
-- or a stand-in text such as 'Not specified', 2 populated. A rule is a threshold: strict
-- counts level 2, presence counts levels 1 and 2. Storing levels keeps the tables independent of the rule.
--
-- Setup columns hold canonical text (numbers to 8 significant digits, strings trimmed,
-- objects as sorted JSON; NULL when absent), so equal setups compare equal in SQL.

CREATE TABLE IF NOT EXISTS reported_rows (
    row_id                  BIGINT PRIMARY KEY,
    own                     BOOLEAN NOT NULL,   -- the leaderboard's own result (section 1)
    source_path             VARCHAR,            -- EEE file, relative to the data directory
    result_index            INTEGER,            -- position in evaluation_results[]
    evaluation_id           VARCHAR,
    schema_version          VARCHAR,
    model_id                VARCHAR NOT NULL,   -- as reported, trimmed (for display)
    model_key               VARCHAR NOT NULL,
    benchmark_name          VARCHAR NOT NULL,   -- dataset_name, else evaluation_name, as reported
    evaluation_name         VARCHAR,
    benchmark_key           VARCHAR NOT NULL,
    slice_key               VARCHAR,
    benchmark_path          VARCHAR NOT NULL,
    metric_name             VARCHAR,            -- metric_id, else metric_name, as reported
    metric_key              VARCHAR NOT NULL,
    metric_unit             VARCHAR,            -- trimmed and lower-cased; NULL when not stated
    min_score               DOUBLE,             -- may be +-infinity; NULL when absent
    max_score               DOUBLE,
    score                   DOUBLE NOT NULL,
    -- The model generated its answers (false: a task scored by log-likelihood, which
    -- samples nothing, so temperature and max_tokens are not required of it; section 4).
    sampled                 BOOLEAN NOT NULL DEFAULT true,
    organization            VARCHAR,
    org_key                 VARCHAR NOT NULL,
    relationship_reported   VARCHAR,
    relationship            VARCHAR NOT NULL,   -- rho: first_party, third_party, collaborative, unspecified
    source_type             VARCHAR,
    lvl_temperature         UTINYINT NOT NULL,
    lvl_max_tokens          UTINYINT NOT NULL,
    lvl_harness             UTINYINT NOT NULL,
    lvl_eval_plan           UTINYINT NOT NULL,
    lvl_eval_limits         UTINYINT NOT NULL,
    lvl_agentic_eval_config UTINYINT NOT NULL,
    lvl_source_type         UTINYINT NOT NULL,
    lvl_organization        UTINYINT NOT NULL,
    lvl_relationship        UTINYINT NOT NULL,
    temperature             VARCHAR,
    top_p                   VARCHAR,
    top_k                   VARCHAR,
    max_tokens              VARCHAR,
    prompt_template         VARCHAR,
    reasoning               VARCHAR,
    agentic_eval_config     VARCHAR,
    harness                 VARCHAR,
    harness_version         VARCHAR,
    agent_scaffold          VARCHAR
);

-- Result entries left out because their score is null or not a finite number (section 2).
CREATE TABLE IF NOT EXISTS reported_dropped (
    source_path   VARCHAR,
    result_index  INTEGER,
    model_id      VARCHAR,
    benchmark     VARCHAR,
    reason        VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS cards (
    card_id             INTEGER PRIMARY KEY,
    source_path         VARCHAR NOT NULL,
    name                VARCHAR,            -- benchmark_details.name as written
    stem                VARCHAR NOT NULL,   -- file stem without the benchmark_card_ prefix
    home_key            VARCHAR NOT NULL,   -- the benchmark key used when no reported benchmark matches
    agentic             BOOLEAN NOT NULL    -- a listed task mentions agent, tool use or multi-step
);

-- Every benchmark key a card answers to (section 2: name, file stem, config aliases).
CREATE TABLE IF NOT EXISTS card_keys (
    card_id  INTEGER NOT NULL,
    key      VARCHAR NOT NULL
);

-- The card's 28 completeness items: fields 1-22, the four sub-items of
-- field 23 (`data`), and fields 27-28. Fields 24-26 come from the reports.
CREATE TABLE IF NOT EXISTS card_fields (
    card_id   INTEGER NOT NULL,
    position  INTEGER NOT NULL,   -- 1..28, the field's number in EVALCARDS.md section 5
    field     VARCHAR NOT NULL,
    sub_item  VARCHAR,            -- annotation, format, size or source for `data`; else NULL
    level     UTINYINT NOT NULL,
    text      VARCHAR             -- the card's text for the item, for the benchmark page
);

CREATE TABLE IF NOT EXISTS card_risks (
    card_id      INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    category     VARCHAR,
    description  VARCHAR,
    url          VARCHAR
);

-- name: reset_reported
-- A fresh load replaces every reported row and card.
DELETE FROM reported_rows;
DELETE FROM reported_dropped;
DELETE FROM cards;
DELETE FROM card_keys;
DELETE FROM card_fields;
DELETE FROM card_risks;

-- name: own_rows_table
-- The leaderboard's own results live in a temporary table beside the reported rows:
-- they are derived from the points at every build, and a temporary table works on a
-- read-only PointsDB too. `result_rows` is the union every signal reads.
CREATE OR REPLACE TEMP TABLE own_rows AS SELECT * FROM reported_rows LIMIT 0;
CREATE OR REPLACE TEMP VIEW result_rows AS
    SELECT * FROM reported_rows UNION ALL BY NAME SELECT * FROM own_rows;

-- name: next_row_id
SELECT coalesce(max(row_id), -1) + 1 FROM reported_rows;

-- name: benchmark_keys
SELECT DISTINCT benchmark_key FROM result_rows ORDER BY 1;

-- name: card_benchmarks
-- Which benchmark each card belongs to (section 2): every reported benchmark whose key is
-- one of the card's keys; a card that matches none keeps its home key so it still gets a
-- page. The loader refuses a card whose keys overlap an earlier card's, so no benchmark
-- has two cards.
CREATE OR REPLACE TEMP TABLE card_benchmarks AS
WITH present AS (SELECT DISTINCT benchmark_key FROM result_rows),
matched AS (
    SELECT DISTINCT p.benchmark_key, k.card_id
    FROM card_keys k JOIN present p ON p.benchmark_key = k.key
)
SELECT benchmark_key, card_id FROM matched
UNION ALL
SELECT c.home_key, c.card_id FROM cards c WHERE c.card_id NOT IN (SELECT card_id FROM matched);

-- name: row_signals
-- Per row (section 4): agentic by any of the three routes, and the required
-- reproducibility fields that are missing, in the order of the spec. Temperature and
-- max_tokens are required of a row that sampled its answers (by task kind: a task scored
-- by log-likelihood generates nothing).
-- $threshold: population level that counts; $pattern_keys: benchmark keys matching the
-- config's agentic pattern (matched in Python, whose regex dialect the config uses).
CREATE OR REPLACE TEMP TABLE row_signals AS
WITH routed AS (
    SELECT r.*,
           coalesce(c.agentic, false) AS agentic_card,
           r.lvl_agentic_eval_config >= $threshold AS agentic_config,
           list_contains($pattern_keys::VARCHAR[], r.benchmark_key) AS agentic_pattern
    FROM result_rows r
    LEFT JOIN card_benchmarks cb USING (benchmark_key)
    LEFT JOIN cards c ON c.card_id = cb.card_id
), judged AS (
    SELECT *, agentic_card OR agentic_config OR agentic_pattern AS agentic FROM routed
)
SELECT *,
       list_filter([
           CASE WHEN sampled AND lvl_temperature < $threshold THEN 'temperature' END,
           CASE WHEN sampled AND lvl_max_tokens < $threshold THEN 'max_tokens' END,
           CASE WHEN agentic AND lvl_harness < $threshold THEN 'harness' END,
           CASE WHEN agentic AND lvl_eval_plan < $threshold THEN 'eval_plan' END,
           CASE WHEN agentic AND lvl_eval_limits < $threshold THEN 'eval_limits' END
       ], lambda f: f IS NOT NULL) AS missing
FROM judged;

-- name: row_details
-- The columns of signals.model.ResultRow, matched by name (signals.compute._rows), then
-- the agentic routes, the missing fields (comma-separated: text crosses into Python faster
-- than a list) and the setup fields.
SELECT row_id, own, source_path, evaluation_id, model_id, model_key, benchmark_name,
       benchmark_key, slice_key, benchmark_path, metric_name, metric_key, metric_unit,
       score, min_score, max_score, organization, org_key, relationship, relationship_reported,
       source_type, agentic, sampled, agentic_card, agentic_config, agentic_pattern,
       array_to_string(missing, ',') AS missing,
       temperature, top_p, top_k, max_tokens, prompt_template, reasoning, agentic_eval_config,
       harness, harness_version, agent_scaffold
FROM row_signals
ORDER BY row_id;

-- name: triple_signals
-- Per triple (sections 4, 6, 7). A setup is the tuple of the ten setup columns (GROUP BY
-- treats absent values as equal); sigma_v is the mean score of a setup within one party,
-- sigma_p the mean of that party's sigma_v. The range is the rows' agreed finite bounds,
-- else 100 for percent, else 1. Spreads are divided by the range and rounded to 9
-- decimals before the strict comparison with theta, so a spread of exactly theta in
-- decimal terms is never flagged by binary rounding noise.
CREATE OR REPLACE TEMP TABLE triple_signals AS
WITH setups AS (
    SELECT model_key, benchmark_path, metric_key, org_key,
           temperature, top_p, top_k, max_tokens, prompt_template, reasoning,
           agentic_eval_config, harness, harness_version, agent_scaffold,
           avg(score) AS sigma_v
    FROM row_signals
    GROUP BY ALL
), parties AS (
    SELECT model_key, benchmark_path, metric_key, org_key,
           count(*) AS setups,
           max(sigma_v) - min(sigma_v) AS spread_v,
           avg(sigma_v) AS sigma_p
    FROM setups
    GROUP BY ALL
), divergence AS (
    SELECT model_key, benchmark_path, metric_key,
           max(spread_v) FILTER (WHERE setups >= 2) AS variant_spread,
           count(*) AS n_parties,
           max(sigma_p) - min(sigma_p) AS cross_spread,
           -- In org_key order, NULL last (as ORDER BY org_key): sorting the finished list by
           -- its leading fields (a triple's parties are distinct) is twice as fast as an
           -- ordered aggregate over 59,000 triples.
           list_sort(list({'absent': org_key IS NULL, 'party': org_key, 'score': sigma_p, 'setups': setups,
                           'spread': CASE WHEN setups >= 2 THEN spread_v END})) AS party_scores
    FROM parties
    GROUP BY ALL
), grouped AS (
    SELECT model_key, benchmark_path, metric_key,
           min(model_id) AS model_id,
           min(benchmark_key) AS benchmark_key,
           min(slice_key) AS slice_key,
           count(*) AS reports,
           list(row_id ORDER BY row_id) AS row_ids,
           bool_or(agentic) AS agentic,
           bool_or(sampled) AS sampled,
           list_filter(['temperature', 'max_tokens', 'harness', 'eval_plan', 'eval_limits'],
                       lambda f: list_contains(flatten(list(missing)), f)) AS missing,
           count(*) = count(*) FILTER (WHERE relationship = 'first_party') AS first_party_only,
           count(DISTINCT org_key) > 1 AS multi_party,
           count(*) FILTER (WHERE relationship = 'first_party') AS first_party,
           count(*) FILTER (WHERE relationship = 'third_party') AS third_party,
           count(*) FILTER (WHERE relationship = 'collaborative') AS collaborative,
           count(*) FILTER (WHERE relationship = 'unspecified') AS unspecified,
           count(*) FILTER (WHERE coalesce(isfinite(min_score) AND isfinite(max_score)
                                           AND max_score > min_score, false)) = count(*)
               AND min(min_score) = max(min_score) AND min(max_score) = max(max_score) AS bounds_agree,
           min(max_score) - min(min_score) AS bounds_range,
           count(*) FILTER (WHERE metric_unit IN ('percent', '%')) > 0
               AND count(*) FILTER (WHERE metric_unit NOT IN ('percent', '%')) = 0 AS percent
    FROM row_signals
    GROUP BY ALL
), ranged AS (
    SELECT g.*, d.variant_spread, d.n_parties, d.cross_spread, d.party_scores,
           CASE WHEN bounds_agree THEN 'metric_config' WHEN percent THEN 'percent' ELSE 'fallback' END AS basis,
           CASE WHEN bounds_agree THEN bounds_range WHEN percent THEN 100.0 ELSE 1.0 END AS score_range
    FROM grouped g JOIN divergence d USING (model_key, benchmark_path, metric_key)
)
SELECT *,
       round(variant_spread / score_range, 9) AS variant_relative,
       round(cross_spread / score_range, 9) AS cross_relative,
       CASE WHEN variant_spread IS NULL THEN NULL
            ELSE round(variant_spread / score_range, 9) > $theta END AS variant_flag,
       CASE WHEN n_parties < 2 THEN NULL
            ELSE round(cross_spread / score_range, 9) > $theta END AS cross_flag
FROM ranged;

-- name: triple_details
-- Most triples have one report and one party: their row id and party figures come as
-- scalars (`only_*`) and the list columns are NULL, since a DuckDB list crosses into
-- Python far slower than scalars (0.75 s against 0.05 s for the 59,000 triples at 2,500
-- evaluations); triples with two or more give the lists. Missing fields are comma-separated.
SELECT model_key, benchmark_path, metric_key, model_id, benchmark_key, slice_key, reports,
       CASE WHEN len(row_ids) = 1 THEN row_ids[1] END AS only_row_id,
       CASE WHEN len(row_ids) > 1 THEN row_ids END AS row_ids,
       agentic, array_to_string(missing, ',') AS missing, first_party_only, multi_party,
       first_party, third_party, collaborative, unspecified,
       basis, score_range, variant_spread, variant_relative, variant_flag,
       n_parties, cross_spread, cross_relative, cross_flag,
       CASE WHEN len(party_scores) = 1 THEN party_scores[1].party END AS only_party_name,
       CASE WHEN len(party_scores) = 1 THEN party_scores[1].score END AS only_party_score,
       CASE WHEN len(party_scores) = 1 THEN party_scores[1].setups END AS only_party_setups,
       CASE WHEN len(party_scores) = 1 THEN party_scores[1].spread END AS only_party_spread,
       CASE WHEN len(party_scores) > 1 THEN list_transform(party_scores, lambda p: p.party) END AS party_names,
       CASE WHEN len(party_scores) > 1 THEN list_transform(party_scores, lambda p: p.score) END AS party_scores,
       CASE WHEN len(party_scores) > 1 THEN list_transform(party_scores, lambda p: p.setups) END AS party_setups,
       CASE WHEN len(party_scores) > 1 THEN list_transform(party_scores, lambda p: p.spread) END AS party_spreads
FROM triple_signals
ORDER BY model_key, benchmark_path, metric_key;

-- name: differing_setups
-- The setup fields whose values differ, with the values (section 7). Scope `variant`:
-- within one party that has two or more setups. Scope `cross_party`: across all setups of
-- a triple reported by two or more parties. Absent values count as a value of their own.
WITH compared AS (
    SELECT model_key, benchmark_path, metric_key, n_parties
    FROM triple_signals WHERE reports >= 2
), setups AS (
    SELECT DISTINCT r.model_key, r.benchmark_path, r.metric_key, r.org_key,
           r.temperature, r.top_p, r.top_k, r.max_tokens, r.prompt_template, r.reasoning,
           r.agentic_eval_config, r.harness, r.harness_version, r.agent_scaffold
    FROM row_signals r SEMI JOIN compared c USING (model_key, benchmark_path, metric_key)
), long AS (
    SELECT * FROM setups UNPIVOT INCLUDE NULLS (setup_value FOR setup_field IN (
        temperature, top_p, top_k, max_tokens, prompt_template, reasoning,
        agentic_eval_config, harness, harness_version, agent_scaffold))
), within_party AS (
    SELECT model_key, benchmark_path, metric_key, org_key, setup_field,
           list(DISTINCT setup_value) FILTER (WHERE setup_value IS NOT NULL) AS present_values,
           bool_or(setup_value IS NULL) AS has_absent
    FROM long
    GROUP BY ALL
    HAVING count(DISTINCT setup_value) + max((setup_value IS NULL)::INTEGER) > 1
), across_parties AS (
    SELECT l.model_key, l.benchmark_path, l.metric_key, l.setup_field,
           list(DISTINCT l.setup_value) FILTER (WHERE l.setup_value IS NOT NULL) AS present_values,
           bool_or(l.setup_value IS NULL) AS has_absent
    FROM long l JOIN compared c USING (model_key, benchmark_path, metric_key)
    WHERE c.n_parties >= 2
    GROUP BY ALL
    HAVING count(DISTINCT l.setup_value) + max((l.setup_value IS NULL)::INTEGER) > 1
)
-- The values as JSON text: a DuckDB list crosses into Python slower than text and json.loads.
SELECT scope, model_key, benchmark_path, metric_key, setup_field,
       to_json(present_values)::VARCHAR AS present_values, has_absent
FROM (
    SELECT 'variant' AS scope, model_key, benchmark_path, metric_key, setup_field,
           list_distinct(flatten(list(present_values))) AS present_values, bool_or(has_absent) AS has_absent
    FROM within_party GROUP BY ALL
    UNION ALL
    SELECT 'cross_party', model_key, benchmark_path, metric_key, setup_field, present_values, has_absent
    FROM across_parties
)
ORDER BY 2, 3, 4, 1, 5;

-- name: corpus_triples
-- Corpus rollups over triples (sections 4, 6, 7). Rates are NULL when nothing is counted.
-- A base field's rate is over all triples, as the gap rate is: a triple scored by
-- log-likelihood does not miss the settings it never needed, so no field's rate exceeds
-- the gap rate.
SELECT count(*) AS triples,
       avg((len(missing) > 0)::INTEGER) AS gap_rate,
       avg(list_contains(missing, 'temperature')::INTEGER) AS temperature,
       avg(list_contains(missing, 'max_tokens')::INTEGER) AS max_tokens,
       avg(list_contains(missing, 'harness')::INTEGER) FILTER (WHERE agentic) AS harness,
       avg(list_contains(missing, 'eval_plan')::INTEGER) FILTER (WHERE agentic) AS eval_plan,
       avg(list_contains(missing, 'eval_limits')::INTEGER) FILTER (WHERE agentic) AS eval_limits,
       count(*) FILTER (WHERE agentic) AS agentic_triples,
       count(*) FILTER (WHERE first_party_only) AS first_party_only,
       count(*) FILTER (WHERE multi_party) AS multi_party,
       count(*) FILTER (WHERE reports >= 2) AS compared,
       count(*) FILTER (WHERE variant_flag) AS variant_flagged,
       count(*) FILTER (WHERE NOT variant_flag) AS variant_within,
       count(*) FILTER (WHERE cross_flag) AS cross_flagged,
       count(*) FILTER (WHERE NOT cross_flag) AS cross_within,
       count(*) FILTER (WHERE variant_flag OR cross_flag) AS flagged,
       count(*) FILTER (WHERE NOT coalesce(variant_flag, false) AND NOT coalesce(cross_flag, false)
                        AND (variant_flag IS NOT NULL OR cross_flag IS NOT NULL)) AS within
FROM triple_signals;

-- name: corpus_relationships
SELECT relationship, count(*) AS rows FROM result_rows GROUP BY 1 ORDER BY 1;

-- name: completeness_catalogue
-- The 28 fields of section 5, filled from builder/signals/completeness.py.
CREATE OR REPLACE TEMP TABLE completeness_catalogue (
    position  INTEGER,
    field     VARCHAR,
    coverage  VARCHAR,   -- full, partial or reserved
    origin    VARCHAR,   -- card or report
    items     INTEGER    -- sub-items: 4 for `data`, else 1
);

-- name: benchmark_fields
-- s(f) for every benchmark and field (section 5) as populated / items. Card fields: the
-- populated items of the benchmark's card (0 without a card). Report fields 24-26: the
-- benchmark's rows that populate the field over all its rows (0 without rows).
CREATE OR REPLACE TEMP TABLE benchmark_fields AS
WITH benchmarks AS (
    SELECT benchmark_key FROM result_rows
    UNION
    SELECT benchmark_key FROM card_benchmarks
), report_counts AS (
    SELECT benchmark_key,
           count(*) AS n_rows,
           count(*) FILTER (WHERE lvl_source_type >= $threshold) AS source_type,
           count(*) FILTER (WHERE lvl_organization >= $threshold) AS organization,
           count(*) FILTER (WHERE lvl_relationship >= $threshold) AS relationship
    FROM result_rows GROUP BY benchmark_key
), card_items AS (
    SELECT cb.benchmark_key, f.field, count(*) FILTER (WHERE f.level >= $threshold) AS populated
    FROM card_benchmarks cb JOIN card_fields f USING (card_id)
    GROUP BY ALL
), counted AS (
    SELECT b.benchmark_key, k.position, k.field, k.coverage, k.origin,
           CASE k.field
               WHEN 'source_metadata.source_type' THEN coalesce(rc.source_type, 0)
               WHEN 'source_metadata.source_organization_name' THEN coalesce(rc.organization, 0)
               WHEN 'source_metadata.evaluator_relationship' THEN coalesce(rc.relationship, 0)
               ELSE coalesce(ci.populated, 0)
           END AS populated,
           CASE WHEN k.origin = 'report' THEN coalesce(rc.n_rows, 0) ELSE k.items END AS items
    FROM benchmarks b
    CROSS JOIN completeness_catalogue k
    LEFT JOIN report_counts rc ON rc.benchmark_key = b.benchmark_key
    LEFT JOIN card_items ci ON ci.benchmark_key = b.benchmark_key AND ci.field = k.field
)
SELECT *, CASE WHEN items = 0 THEN 0.0 ELSE populated / items END AS score
FROM counted;

-- name: benchmark_completeness
SELECT benchmark_key, sum(score) / count(*) AS completeness
FROM benchmark_fields GROUP BY benchmark_key ORDER BY benchmark_key;

-- name: benchmark_field_scores
SELECT benchmark_key, position, field, coverage, origin, items, populated, score
FROM benchmark_fields ORDER BY benchmark_key, position;

-- name: corpus_completeness
SELECT median(completeness) FROM (
    SELECT sum(score) / count(*) AS completeness FROM benchmark_fields GROUP BY benchmark_key
);

-- name: corpus_field_population
SELECT position, field, avg(score) AS rate FROM benchmark_fields GROUP BY ALL ORDER BY position;

-- name: benchmark_overview
-- Per benchmark: its card (if any), display name and counts of rows and triples.
WITH reported AS (
    SELECT benchmark_key, min(benchmark_name) AS reported_name, count(*) AS n_rows
    FROM result_rows GROUP BY benchmark_key
), tripled AS (
    SELECT benchmark_key, count(*) AS n_triples FROM triple_signals GROUP BY benchmark_key
)
SELECT b.benchmark_key, c.card_id, c.source_path, c.name, coalesce(c.agentic, false) AS agentic,
       r.reported_name, coalesce(r.n_rows, 0) AS n_rows, coalesce(t.n_triples, 0) AS n_triples
FROM (SELECT DISTINCT benchmark_key FROM benchmark_fields) b
LEFT JOIN card_benchmarks cb USING (benchmark_key)
LEFT JOIN cards c ON c.card_id = cb.card_id
LEFT JOIN reported r USING (benchmark_key)
LEFT JOIN tripled t USING (benchmark_key)
ORDER BY b.benchmark_key;

-- name: card_texts
SELECT cb.benchmark_key, f.position, f.field, f.sub_item, f.level, f.text
FROM card_benchmarks cb JOIN card_fields f USING (card_id)
ORDER BY cb.benchmark_key, f.position, f.sub_item NULLS FIRST;

-- name: card_risk_list
SELECT cb.benchmark_key, r.position, r.category, r.description, r.url
FROM card_benchmarks cb JOIN card_risks r USING (card_id)
ORDER BY cb.benchmark_key, r.position;

-- name: dropped_count
SELECT count(*) FROM reported_dropped;

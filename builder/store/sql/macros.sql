-- The Wilson interval and the six estimators (STATISTICS.md sections 1 and 2).
-- Every estimate on the site comes from these macros; nothing re-implements them.

CREATE OR REPLACE MACRO z95() AS 1.959963984540054;
CREATE OR REPLACE MACRO z975() AS 2.241402727604947;

-- Successes clamped into [0, t]: guess-corrected counts may dip below zero.
CREATE OR REPLACE MACRO wilson_p(s, t) AS least(greatest(s, 0.0), t) / t;

CREATE OR REPLACE MACRO wilson_center(s, t, z) AS
    CASE WHEN t <= 0 THEN 0.5
         ELSE (wilson_p(s, t) + z * z / (2.0 * t)) / (1.0 + z * z / t) END;

CREATE OR REPLACE MACRO wilson_margin(s, t, z) AS
    CASE WHEN t <= 0 THEN 0.5
         ELSE z * sqrt(wilson_p(s, t) * (1.0 - wilson_p(s, t)) / t + z * z / (4.0 * t * t))
              / (1.0 + z * z / t) END;

CREATE OR REPLACE MACRO wilson_low(s, t, z) AS wilson_center(s, t, z) - wilson_margin(s, t, z);
CREATE OR REPLACE MACRO wilson_high(s, t, z) AS wilson_center(s, t, z) + wilson_margin(s, t, z);

-- A single-Wilson estimator as {est, low, high}.
CREATE OR REPLACE MACRO wilson_estimate(s, t, z) AS
    {'est': wilson_center(s, t, z), 'low': wilson_low(s, t, z), 'high': wilson_high(s, t, z)};

-- Counters: n = total, nt = truncated, ne = correct, g = guess accumulator.
CREATE OR REPLACE MACRO est_e_i(n, nt, ne, g) AS wilson_estimate(ne, n - nt, z95());
CREATE OR REPLACE MACRO est_e_p(n, nt, ne, g) AS wilson_estimate(ne, n, z95());
CREATE OR REPLACE MACRO est_e_o(n, nt, ne, g) AS wilson_estimate(ne + nt, n, z95());
CREATE OR REPLACE MACRO est_c_i(n, nt, ne, g) AS wilson_estimate(ne - g, n - nt - g, z95());

-- Products of two Wilson factors at z975 each (Bonferroni), bounds by interval arithmetic.
CREATE OR REPLACE MACRO est_c_p(n, nt, ne, g) AS {
    'est':  wilson_center(ne - g, n - nt - g, z975()) * wilson_center(n - nt, n, z975()),
    'low':  wilson_low(ne - g, n - nt - g, z975()) * wilson_low(n - nt, n, z975()),
    'high': wilson_high(ne - g, n - nt - g, z975()) * wilson_high(n - nt, n, z975())};

CREATE OR REPLACE MACRO est_c_o(n, nt, ne, g) AS {
    'est':  1.0 - wilson_center(n - nt - ne, n - nt - g, z975()) * wilson_center(n - nt, n, z975()),
    'low':  1.0 - wilson_high(n - nt - ne, n - nt - g, z975()) * wilson_high(n - nt, n, z975()),
    'high': 1.0 - wilson_low(n - nt - ne, n - nt - g, z975()) * wilson_low(n - nt, n, z975())};

-- ReasonScore v1 task score (STATISTICS.md section 5): the guess accumulator comes off all
-- trials, the upper Wilson bound is kept, the truncation ratio is subtracted, floor 0.01.
CREATE OR REPLACE MACRO est_v1(n, nt, ne, g) AS {
    'est':  greatest(wilson_high(ne - g, n - g, z95()) - nt / n, 0.01),
    'low':  greatest(wilson_low(ne - g, n - g, z95()) - nt / n, 0.01),
    'high': greatest(wilson_high(ne - g, n - g, z95()) - nt / n, 0.01)};

-- One entry point for a mode named at run time (a bound parameter, never formatted in).
CREATE OR REPLACE MACRO estimate(mode, n, nt, ne, g) AS
    CASE mode
        WHEN 'E_I' THEN est_e_i(n, nt, ne, g)
        WHEN 'E_P' THEN est_e_p(n, nt, ne, g)
        WHEN 'E_O' THEN est_e_o(n, nt, ne, g)
        WHEN 'C_I' THEN est_c_i(n, nt, ne, g)
        WHEN 'C_P' THEN est_c_p(n, nt, ne, g)
        WHEN 'C_O' THEN est_c_o(n, nt, ne, g)
        WHEN 'V1'  THEN est_v1(n, nt, ne, g)
    END;

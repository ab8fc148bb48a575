"""Export: the leaderboard's own computed results in formats other tools read.

Like the JSON data files of a build, an export is an output made from the computed results
(config, statistics, signals); it never reads inputs itself. `eee` writes Every Eval Ever
aggregate records; `writer` puts a finished export in place, all or nothing.
"""

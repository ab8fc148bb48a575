"""One module per page kind, each building frozen view models from the typed results
(STYLE.md data flow); `base` and `rows` hold what several kinds share."""

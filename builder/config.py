"""The site configuration (`content/site.toml`): typed options that validate themselves.

After MkDocs' config options: each key is declared once with its type, default and check,
so a typo in the file is an error naming the key, and every other module reads a frozen
`SiteConfig` instead of a loose dict. An empty file is valid: every option has a default.

The defaults are neutral (title "Leaderboard", no organisation): a lab's results are never
published under the demo's name. Only a build of simulated data (`reasonboard demo`) that
sets no title or organisation of its own gets the demo's (`with_demo_defaults`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import duckdb

from .errors import InputError, did_you_mean, shown
from .sources.text import read_text
from .vocabulary import MODES, RELATIONSHIPS

POPULATED_RULES = ("strict", "presence")
DEFAULT_AGENTIC_PATTERN = (
    r"agent|swe-?bench|tau-?bench|gaia|webarena|mind2web|osworld|appworld|browsecomp"
    r"|terminal-?bench|corebench|usaco|scicode"
)


# -- option checks -------------------------------------------------------------------

Check = Callable[[Any], Any]


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def _choice(*choices: str) -> Check:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return str(value)

    return check


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("must be a positive integer")
    return value


#: Replicates of a bootstrap (`bootstrap`, `paired_draws`): each is an array of one value
#: per replicate and task, so an unbounded count is a memory error, not a build (a
#: published interval needs a few thousand; 100,000 gives its third decimal).
MAX_DRAWS = 100_000


def _draws(value: Any) -> int:
    draws = _positive_int(value)
    if draws > MAX_DRAWS:
        raise ValueError(f"must be at most {MAX_DRAWS:,} (the limit; a few thousand replicates give a stable interval)")
    return draws


def _seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("must be a whole number, 0 or more")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _string_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError("must be a list of non-empty strings")
    if len(set(value)) != len(value):
        raise ValueError("lists a task twice")
    return tuple(value)


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError("must be a table of strings")
    return dict(sorted(value.items()))


def _http_url(value: Any) -> str:
    """Empty, or an absolute http(s) URL: `javascript:` or `data:` would run in every link
    made from it (404.html's). No spaces or control characters, which a browser drops or
    reads otherwise."""
    text = _string(value).strip()
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c.isspace() or not c.isprintable()
                                                                                 for c in text):
        raise ValueError("must be an http:// or https:// URL such as 'https://example.org/board/'")
    return text


def _static_path(value: Any) -> str:
    """A relative path inside `static/`, as it will appear in the site (`img/logo.svg`)."""
    text = _string(value)
    parts = text.split("/")
    if not text or text.startswith("/") or "\\" in text or any(p in ("", ".", "..") for p in parts):
        raise ValueError("must be a relative path inside static/ such as 'logo.svg' (no '..', no leading '/')")
    return text


def _regex(value: Any) -> str:
    text = _string(value)
    if len(text) > MAX_PATTERN:
        raise ValueError(f"is longer than {MAX_PATTERN} characters (the limit)")
    try:
        matching(text, [])
    except duckdb.Error as exc:
        reason = str(exc).splitlines()[0].removeprefix("Invalid Input Error: ")
        raise ValueError(f"is not a valid regular expression ({reason}; RE2 syntax, without look-arounds or "
                         "back-references)") from None
    return text


#: Characters of a configured regular expression.
MAX_PATTERN = 1000


def matching(pattern: str, texts: list[str]) -> list[str]:
    """The `texts` that `pattern` matches anywhere, sorted. Matched by RE2 (DuckDB's
    `regexp_matches`), in time linear in the text whatever the pattern: a config's
    `^(a|aa)+$` cannot hang the build as Python's backtracking `re` would. The connection
    is closed before returning: an open one keeps DuckDB's threads running, and the render
    pool must not fork beside them (a build makes a few such calls)."""
    with duckdb.connect() as con:
        rows = con.execute("SELECT t FROM unnest(?::VARCHAR[]) AS u(t) WHERE regexp_matches(t, ?) ORDER BY t",
                           [texts or [""], pattern]).fetchall()
    return [r[0] for r in rows] if texts else []


@dataclass(frozen=True)
class BoardSpec:
    """A board (PRODUCT.md "Boards"): a named set of tasks ranked together. Empty `tasks`
    (only for the one board made from a config without `[[boards]]` or `tasks`) means
    every task found in the data."""

    name: str
    tasks: tuple[str, ...] = ()
    description: str = ""


BOARD_KEYS = ("name", "tasks", "description")


def _boards(value: Any) -> tuple[BoardSpec, ...]:
    """`[[boards]]`: a list of tables, each with a `name`, a non-empty `tasks` list and an
    optional `description`; names are unique."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise ValueError("must be a list of tables: [[boards]] with name = \"...\" and tasks = [...]")
    boards = []
    for n, table in enumerate(value, 1):
        unknown = sorted(set(table) - set(BOARD_KEYS))
        if unknown:
            raise ValueError(f"entry {n} has the unknown key '{unknown[0]}' (known: {', '.join(BOARD_KEYS)})")
        if not isinstance(table.get("name"), str) or not table["name"].strip():
            raise ValueError(f"entry {n} needs a name (a non-empty string)")
        if "tasks" not in table:
            raise ValueError(f"entry {n} ('{table['name']}') needs tasks = [...], the tasks it ranks together")
        try:
            tasks = _string_list(table["tasks"])
        except ValueError as exc:
            raise ValueError(f"entry {n} ('{table['name']}'): tasks {exc}") from None
        if not tasks:
            raise ValueError(f"entry {n} ('{table['name']}'): tasks must name at least one task")
        description = table.get("description", "")
        if not isinstance(description, str):
            raise ValueError(f"entry {n} ('{table['name']}'): description must be a string")
        boards.append(BoardSpec(table["name"].strip(), tasks, description))
    seen: dict[str, int] = {}
    for n, b in enumerate(boards, 1):
        first = seen.setdefault(b.name.casefold(), n)
        if first != n:
            raise ValueError(f"names two boards '{boards[first - 1].name}' and '{b.name}' (entries {first} and {n}); "
                             "board names are unique (ignoring case): rename one")
    return tuple(boards)


def option(default: Any, check: Check, *, key: str | None = None) -> Any:
    """A config key: its default and its check, on the `SiteConfig` field that holds it.
    `key` is its name in the file when that differs (`aliases.models`); a dict default is
    copied per config."""
    meta = {"check": check, "key": key}
    if isinstance(default, dict):
        return field(default_factory=dict, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class SiteConfig:
    """Every key of `site.toml`, each declared once: its type, default and check."""

    title: str = option("Leaderboard", _string)
    description: str = option("ReasonScores with confidence intervals, statistical ties and Evaluation Card signals",
                              _string)
    base_url: str = option("", _http_url)
    organization: str = option("", _string)
    relationship: str = option("third_party", _choice(*RELATIONSHIPS))
    tasks: tuple[str, ...] = option((), _string_list)
    #: `[[boards]]`: the first is the front page; without it, `tasks` is the one board.
    boards: tuple[BoardSpec, ...] = option((), _boards)
    mode: str = option("C_P", _choice(*MODES))
    bootstrap: int = option(5000, _draws)
    seed: int = option(42, _seed)
    pairwise_top: int = option(50, _positive_int)
    #: SAMPLES.md section 4: a task result with fewer samples is preliminary (no band, no rank);
    #: section 5: two evaluations sharing fewer items of a task are not compared paired there.
    min_samples: int = option(20, _positive_int)
    #: SAMPLES.md section 5: the paired bootstrap's replicates.
    paired_draws: int = option(2000, _draws)
    populated_rule: str = option("strict", _choice(*POPULATED_RULES))
    agentic_pattern: str = option(DEFAULT_AGENTIC_PATTERN, _regex)
    page_size: int = option(100, _positive_int)
    #: SAMPLES.md section 5: publish each evaluation's per-sample outcomes (no item or answer
    #: text, which is never stored) under data/samples/; false keeps even the items' ids private.
    publish_samples: bool = option(True, _bool)
    #: `[aliases]` holds two tables, `models` and `benchmarks`; `[evaluations]` picks one
    #: evaluation per model name ("model" = "template/sampler") when a publisher wants one row.
    model_aliases: dict[str, str] = option({}, _string_map, key="aliases.models")
    benchmark_aliases: dict[str, str] = option({}, _string_map, key="aliases.benchmarks")
    evaluations: dict[str, str] = option({}, _string_map)
    #: Branding: paths inside the project's `static/` (checked at build time, see
    #: project.py) and a footer line in Markdown (rendered like a content page).
    logo: str = option("", _static_path)
    favicon: str = option("", _static_path)
    extra_css: str = option("", _static_path)
    footer: str = option("", _string)
    #: The file the values came from, for error messages about them.
    path: str = field(default="<default config>", compare=False)
    #: The keys the file set, so demo defaults never replace a value the publisher chose.
    given: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def board_specs(self) -> tuple[BoardSpec, ...]:
        """The boards as configured: `[[boards]]`, else one board of `tasks` (empty:
        every task found)."""
        return self.boards or (BoardSpec("Leaderboard", self.tasks),)

    def with_tasks(self, tasks: tuple[str, ...]) -> SiteConfig:
        """The same config with the task set made explicit (default: every task found)."""
        return replace(self, tasks=tasks)

    def with_demo_defaults(self) -> SiteConfig:
        """For simulated data only: the demo's title and organisation where the file set none."""
        return replace(
            self,
            title=self.title if "title" in self.given else DEMO_DEFAULTS["title"],
            organization=self.organization if "organization" in self.given else DEMO_DEFAULTS["organization"],
        )


#: What a build of `reasonboard demo` data is called when its config does not say.
DEMO_DEFAULTS = {"title": "reasonboard demo leaderboard", "organization": "reasonboard demo"}
#: Branding keys naming a file in the project's `static/` directory.
STATIC_KEYS = ("logo", "favicon", "extra_css")


#: Key in the file -> (field, check), read off the `SiteConfig` declarations: plain keys,
#: and the tables (`aliases.models`, `aliases.benchmarks`, `evaluations`).
_DECLARED = {f.metadata["key"] or f.name: (f.name, f.metadata["check"]) for f in fields(SiteConfig) if f.metadata}
OPTIONS: dict[str, Check] = {k: check for k, (_, check) in _DECLARED.items() if check is not _string_map}
TABLES: dict[str, str] = {k: name for k, (name, check) in _DECLARED.items() if check is _string_map}


def parse_config(raw: dict[str, Any], path: str | Path = "<config>") -> SiteConfig:
    """Validate a parsed TOML document; the first problem raises `InputError` naming the key."""
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "aliases":
            if not isinstance(value, dict):
                raise InputError(path, "key 'aliases' must be a table", row=None)
            for sub, table in value.items():
                name = TABLES.get(f"aliases.{sub}")
                if name is None:
                    raise InputError(path, f"unknown key 'aliases.{sub}'{did_you_mean(sub, ('models', 'benchmarks'))} "
                                           "(known: models, benchmarks)", line=key_line(path, sub))
                values[name] = _checked(path, f"aliases.{sub}", _string_map, table)
        elif key in TABLES:
            values[TABLES[key]] = _checked(path, key, _string_map, value)
        elif key in OPTIONS:
            values[key] = _checked(path, key, OPTIONS[key], value)
        else:
            names = sorted([*OPTIONS, "aliases", *[k for k in TABLES if "." not in k]])
            raise InputError(path, f"unknown key '{key}'{did_you_mean(key, names)} (known keys: {', '.join(names)})",
                             line=key_line(path, key))
    if values.get("boards") and values.get("tasks"):
        raise InputError(path, "key 'tasks' and [[boards]] are both given; the first board is the front page: "
                               "move the tasks into a [[boards]] entry and remove 'tasks'")
    return SiteConfig(**values, path=str(path), given=frozenset(raw))


def _checked(path: str | Path, key: str, check: Check, value: Any) -> Any:
    """`check(value)`; a failure names the key, its line, the value seen and, for a number
    written as a string (`bootstrap = "5000"`), the spelling that works."""
    try:
        return check(value)
    except ValueError as exc:
        fix = ""
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value):
            fix = f": write {key.rsplit('.', 1)[-1]} = {value.strip()}, without quotes"
        raise InputError(path, f"key '{key}' {exc} (got {shown(value)}){fix}",
                         line=key_line(path, key.rsplit(".", 1)[-1])) from None


def key_line(path: str | Path | None, key: str) -> int | None:
    """The line where `key = ...` is first written in the TOML file, for the message."""
    if path is None:
        return None
    try:
        lines = read_text(Path(path)).splitlines()
    except InputError:  # the message is about the file anyway; it just has no line then
        return None
    pattern = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*=""")
    return next((n for n, line in enumerate(lines, start=1) if pattern.match(line)), None)


def load_config(path: str | Path | None) -> SiteConfig:
    """Read `site.toml`; a missing default file means all defaults, a bad one is an error."""
    if path is None:
        return SiteConfig()
    path = Path(path)
    return parse_config(read_toml(path, "config file"), path)


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """Parse a TOML file; a missing or invalid one is an `InputError` naming `what` it is."""
    if not path.is_file():
        raise InputError(path, f"{what} not found")
    try:
        return tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"invalid TOML: {exc}") from None

"""A leaderboard project: the directory a command works in, and where each input is found.

After MkDocs' `custom_dir` and Hugo's lookup order: a project is a directory holding
`data/`, `content/` (site.toml, pages, bands.toml), `templates/`, `static/`, with the built
site in `site/` and the cache in `.reasonboard-cache/`. Whatever the project does not
provide comes from the package, through one lookup order, project first:

* templates: a project template with a built-in name replaces it, others are added;
* content pages and `bands.toml`: likewise, by file name;
* `static/`: copied into the site as it is (project only).

In the tool's own checkout the repository root is itself a project whose `content/` and
`templates/` are the built-in ones; the search paths then hold each directory once.
Explicit `--data/--out/--config/--cache/--content` options keep their meaning.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from .config import STATIC_KEYS, SiteConfig, key_line
from .confined import NotConfined, is_inside, outside, read_confined, refuse_linked_folders
from .errors import InputError, did_you_mean
from .resources import CONTENT_DIR, DEMO_CONTENT_DIR, TEMPLATES_DIR


@dataclass(frozen=True)
class Project:
    """Every input and output location of one build, already resolved."""

    root: Path
    data_dir: Path
    out_dir: Path
    cache_dir: Path
    #: The site config; None means all defaults (the package ships no site.toml).
    config_path: Path | None
    #: Content lookup order, first match by file name wins: project, then package.
    content_dirs: tuple[Path, ...]
    #: Template lookup order: project `templates/`, then the package's.
    templates_dirs: tuple[Path, ...]
    #: Copied into the site as it is; None when the project has none.
    static_dir: Path | None

    def with_demo_content(self) -> Project:
        """For simulated data: the demo's pages (its about page) after everything else."""
        if DEMO_CONTENT_DIR in self.content_dirs:
            return self
        return replace(self, content_dirs=(*self.content_dirs, DEMO_CONTENT_DIR))

    def find_content(self, name: str) -> Path | None:
        """The first `name` along the content lookup order (e.g. `bands.toml`)."""
        for folder in self.content_dirs:
            if (folder / name).is_file():
                return folder / name
        return None

    def static_files(self) -> dict[str, Path]:
        """Site path -> file for everything under `static/` (sorted, hidden files included:
        `.well-known/` belongs to the site as much as `CNAME`), except `.gitkeep`, which
        only keeps an empty folder in git."""
        if self.static_dir is None:
            return {}
        refuse_linked_folders(self.static_dir, self.static_dir)
        return {p.relative_to(self.static_dir).as_posix(): p
                for p in sorted(self.static_dir.rglob("*")) if p.is_file() and p.name != ".gitkeep"}

    def read_static(self, source: Path) -> bytes:
        """A file of `static/`, read only when it is a regular file inside it (confined.py)."""
        return read_confined(source, self.static_dir)

    def cache_warnings(self) -> list[str]:
        """A cache folder tracked by git came with the checkout: the build ignores what it
        holds (cachekey.py), but it should not be in the repository."""
        try:
            listed = subprocess.run(["git", "-C", str(self.root), "ls-files", "--", str(self.cache_dir.absolute())],
                                    capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):  # no git here: nothing to say
            return []
        if listed.returncode != 0 or not listed.stdout.strip():
            return []
        return [f"the cache folder {self.cache_dir} is tracked by git: what it holds is not used (a cache is "
                "trusted only where it was made); remove it from the repository (git rm -r --cached "
                f"{self.cache_dir}) and list it in .gitignore"]

    def check_branding(self, config: SiteConfig) -> None:
        """`logo`, `favicon` and `extra_css` must name a file in `static/` (one-line error)."""
        present = self.static_files()
        for key in STATIC_KEYS:
            value = getattr(config, key)
            if value and value not in present:
                where = self.static_dir if self.static_dir is not None else self.root / "static"
                inside = value.removeprefix("static/")
                if inside != value and inside in present:
                    raise InputError(config.path, f"key '{key}' names '{value}': paths are relative to static/, "
                                                  f"so write {key} = \"{inside}\"", line=key_line(config.path, key))
                raise InputError(config.path, f"key '{key}' names '{value}', which is not a file in {where}"
                                              f"{did_you_mean(value, present)}", line=key_line(config.path, key))


CACHE_DIR = ".reasonboard-cache"
"""The project's cache folder, unless `--cache` names another."""


def _check_inside(root: Path, folder: Path) -> None:
    """A project's own folder (`data/`, `content/`, `templates/`, `static/`, the cache, not one
    given on the command line) must be inside the project: a checkout whose `static` is a link
    to a folder elsewhere on the build machine would publish that folder's files, and the
    checks of confined.py, made against the folder itself, would let every file in it through;
    a `.reasonboard-cache` linked elsewhere would have the build write its PointsDB and state
    files there."""
    if (folder.exists() or folder.is_symlink()) and not is_inside(folder, root):
        option = {"data": "--data", "content": "--content", CACHE_DIR: "--cache"}.get(folder.name)
        fix = "replace the link with the folder itself" + (f", or name the folder with {option}" if option else "")
        raise NotConfined(folder, outside(folder, os.path.realpath(folder), os.path.realpath(root), fix))


def _search_path(*dirs: Path | None) -> tuple[Path, ...]:
    """Existing directories in order, each once (the checkout's own content is the package's)."""
    seen: list[Path] = []
    for d in dirs:
        if d is not None and d.is_dir() and all(d.resolve() != s.resolve() for s in seen):
            seen.append(d)
    return tuple(seen)


def resolve_project(root: Path | None = None, *, data_dir: Path | None = None, out_dir: Path | None = None,
                    cache_dir: Path | None = None, config_path: Path | None = None,
                    content_dir: Path | None = None) -> Project:
    """Where everything is for a project at `root` (default: the current directory)."""
    root = Path(root) if root is not None else Path()
    if not root.is_dir():
        raise InputError(root, "project directory not found")
    for name in ("data" if data_dir is None else None, "content" if content_dir is None else None,
                 "templates", "static", CACHE_DIR if cache_dir is None else None):
        if name is not None:
            _check_inside(root, root / name)
    content = content_dir if content_dir is not None else root / "content"
    if config_path is None and (content / "site.toml").is_file():
        config_path = content / "site.toml"
    static = root / "static"
    return Project(
        root=root,
        data_dir=data_dir if data_dir is not None else root / "data",
        out_dir=out_dir if out_dir is not None else root / "site",
        cache_dir=cache_dir if cache_dir is not None else root / CACHE_DIR,
        config_path=config_path,
        content_dirs=_search_path(content, CONTENT_DIR),
        templates_dirs=_search_path(root / "templates", TEMPLATES_DIR),
        static_dir=static if static.is_dir() else None,
    )

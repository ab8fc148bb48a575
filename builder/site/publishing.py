"""The site stage's one entry for a build: render every page, add the data files and the
project's static files, and write them all through the writer (all or nothing)."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence

from ..errors import InputError
from ..project import Project
from ..results import BuildResults
from .render import iter_site
from .reuse import PageReuse
from .writer import DuplicatePath, Output, OutputPathError, WriteReport, staging


def publish(results: BuildResults, project: Project, data: Sequence[Callable[[], Iterable[tuple[str, Output]]]],
            reuse: PageReuse | None = None) -> WriteReport:
    """Write the site of `results` into `project.out_dir`: the pages and assets (templates
    and content along the project's lookup order), the data files the jobs `data` yield (in
    the render workers, while the pages render, one at a time: the per-sample files can be
    many), and the project's `static/` files as they are.

    The writer claims every output path once: a static file may add to the site but never
    replace a generated file, which is an error naming it. Files whose bytes are unchanged
    keep their modification time; given `reuse`, a page whose key and file are the previous
    build's is kept without rendering it (reuse.py)."""
    static = project.static_files()

    with staging(project.out_dir, incremental=True) as stage:
        def outputs() -> Iterator[tuple[str, Output]]:
            yield from iter_site(results, project.content_dirs, project.templates_dirs, stage=stage, alongside=data,
                                 reuse=reuse)
            for site_path, source in static.items():
                yield site_path, project.read_static(source)

        try:
            return stage.write(outputs())
        except OutputPathError as exc:
            source = static.get(exc.path)
            if source is None:
                raise
            if isinstance(exc, DuplicatePath):
                raise InputError(source, f"would replace the generated file {exc.path} of the site; "
                                         "rename or remove it") from None
            raise InputError(source, f"cannot be copied into the site: {exc}") from None

"""The Jinja environment every page is rendered in: sandboxed, reading templates by the
project's file rule.

A project's templates may come from a pull request or a project someone else wrote, so
they run in Jinja's `ImmutableSandboxedEnvironment` (PRODUCT.md, "Untrusted checkouts"): a
template can read the values it is given and call the helpers below, but reaches no Python
internals (`cycler.__init__.__globals__`, `__class__`, `__subclasses__` all raise
`SecurityError`) and cannot modify a list or dict it is handed. The built-in templates run
in the same sandbox: one environment, one rule. Its cost is measured by
`benchmarks/sandbox.py`.

Templates are read through `read_confined` (confined.py), like every other file of a
project: a template that is a link to a file outside its folder is an error, never read.
Compiled templates are not kept between builds: Jinja's bytecode cache holds marshalled
code, which a committed cache folder could forge.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.loaders import split_template_path
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from ..confined import read_confined
from ..errors import InputError
from ..sources.text import decode_text
from . import format as fmt


class ConfinedLoader(jinja2.BaseLoader):
    """Templates along a lookup order (project first, then the package's: MkDocs'
    `custom_dir`), each read only when it is a regular file inside its own folder."""

    def __init__(self, folders: Sequence[Path]) -> None:
        self.folders = tuple(Path(f) for f in folders)

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = split_template_path(template)  # refuses `..` and absolute names
        for folder in self.folders:
            path = folder.joinpath(*pieces)
            if path.is_file() or path.is_symlink():
                return decode_text(path, read_confined(path, folder)), str(path), lambda: True
        raise jinja2.TemplateNotFound(template)

    def list_templates(self) -> list[str]:
        found = {p.relative_to(folder).as_posix() for folder in self.folders if folder.is_dir()
                 for p in folder.rglob("*.html")}
        return sorted(found)


#: The number formatting helpers (format.py) as the only attributes templates see of it.
FORMAT = SimpleNamespace(**{name: getattr(fmt, name) for name in dir(fmt)
                            if not name.startswith("_") and callable(getattr(fmt, name))
                            and getattr(getattr(fmt, name), "__module__", None) == fmt.__name__})


class Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, deciding once per (type, attribute name) whether a template
    may read it. Jinja's rule reads only those two (a name with `_` in front, a function's or
    a generator's internals, a method that changes a list, dict, set or deque), never the
    object itself or the value read, so its answer for one object of a type is its answer for
    every object of that type. A page reads hundreds of attributes of a few record types;
    asking the rule each time was a third of rendering a page."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._safe: dict[tuple[type, str], bool] = {}

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        key = (type(obj), attr)
        found = self._safe.get(key)
        if found is None:
            found = self._safe[key] = super().is_safe_attribute(obj, attr, value)
        return found

    def getattr(self, obj: Any, attribute: str) -> Any:
        """Jinja's `getattr`, with one step less for the values a page reads most: a value of
        a `_PLAIN` type is no `str.format` method, which Jinja's would wrap, so only the
        kept decision is asked. Any other value (or a missing attribute) goes to Jinja's."""
        try:
            value = getattr(obj, attribute)
        except AttributeError:
            return super().getattr(obj, attribute)
        if type(value) in _PLAIN:
            return value if self.is_safe_attribute(obj, attribute, value) else self.unsafe_undefined(obj, attribute)
        return super().getattr(obj, attribute)


#: Types whose values are data, never a method (the kinds a page's records hold).
_PLAIN = frozenset({str, Markup, int, float, bool, type(None), tuple, list, dict})


def sandboxed(folders: Sequence[Path]) -> jinja2.Environment:
    """Autoescaping on for every template (data never becomes markup); undefined names fail."""
    env = Sandbox(
        loader=ConfinedLoader(folders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment per build: a template read once cannot change during it, so
        # Jinja need not stat the file again on every page that uses it.
        auto_reload=False,
    )
    env.globals["fmt"] = FORMAT
    return env


def template_error(exc: jinja2.TemplateError, name: str) -> InputError:
    """A template's failure as one line naming its file and line: a syntax error, an
    undefined name, or the sandbox refusing what the template tried to reach."""
    path, line = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    tb = exc.__traceback__
    while tb is not None:  # Jinja gives each template's frames the template's own file name
        if tb.tb_frame.f_code.co_filename.endswith((".html", ".css", ".js")):
            path, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    kind = "the sandbox refused it" if isinstance(exc, SecurityError) else type(exc).__name__
    return InputError(path or name, f"template error ({kind}): {str(exc).splitlines()[0] if str(exc) else exc!r}",
                      line=line)

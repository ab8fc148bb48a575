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

from ..confined import is_inside, read_confined
from ..errors import InputError
from ..resources import TEMPLATES_DIR
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


#: What one `*` may build in a template (characters of a text, items of a list), and the bits
#: of an integer `**` may make: far above what a page needs, far below what exhausts a machine.
MAX_PRODUCT = 10_000_000
MAX_POWER_BITS = 100_000


class Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, deciding once per (type, attribute name) whether a template
    may read it. Jinja's rule reads only those two (a name with `_` in front, a function's or
    a generator's internals, a method that changes a list, dict, set or deque), never the
    object itself or the value read, so its answer for one object of a type is its answer for
    every object of that type. A page reads hundreds of attributes of a few record types;
    asking the rule each time was a third of rendering a page."""

    #: `*` and `**` are checked before they run: `{{ 'x' * 10**10 }}` or `{{ 10 ** 10 ** 9 }}`
    #: would exhaust the build machine's memory or time before any error could be raised.
    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._safe: dict[tuple[type, str], bool] = {}

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if (isinstance(sequence, (str, list, tuple)) and isinstance(times, int)
                        and len(sequence) * times > MAX_PRODUCT):
                    raise SecurityError(f"a repeated text or list longer than {MAX_PRODUCT:,} items (the limit)")
        elif (operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0
              and abs(left) > 1 and left.bit_length() * right > MAX_POWER_BITS):
            raise SecurityError(f"a power larger than 2**{MAX_POWER_BITS:,} (the limit)")
        return super().call_binop(context, operator, left, right)

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


#: What a template can do wrong beyond Jinja's own errors: a macro or include that calls
#: itself without end (RecursionError), a `range()` beyond the sandbox's limit (OverflowError).
RUNAWAY = (RecursionError, OverflowError)


def template_error(exc: Exception, name: str) -> InputError:
    """A template's failure as one line naming its file and line: a syntax error, an
    undefined name, the sandbox refusing what the template tried to reach, or a runaway
    (`RUNAWAY`: endless recursion, a range too large)."""
    path, line = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    tb = exc.__traceback__
    # Endless recursion ends wherever the stack runs out, often in a built-in template the
    # project's one keeps entering: name the innermost frame of a project's template then.
    builtin = str(TEMPLATES_DIR) if isinstance(exc, RecursionError) else None
    found = False
    while tb is not None:  # Jinja gives each template's frames the template's own file name
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith((".html", ".css", ".js")) and not (
                found and builtin is not None and is_inside(filename, builtin)):
            path, line = filename, tb.tb_lineno
            found = found or builtin is None or not is_inside(filename, builtin)
        tb = tb.tb_next
    kind = "the sandbox refused it" if isinstance(exc, SecurityError) else type(exc).__name__
    fix = ("; a macro or include calls itself without end: give it a condition that stops"
           if isinstance(exc, RecursionError) else "")
    return InputError(path or name, f"template error ({kind}): {str(exc).splitlines()[0] if str(exc) else exc!r}{fix}",
                      line=line)

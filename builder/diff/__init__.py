"""The score-change report (`reasonboard diff`, PRODUCT.md "Score-change report").

`compare` turns two built leaderboards (and their signal files) into a frozen
`ScoreChangeReport`; `markdown` renders it for a pull-request comment; `command` is the CLI.
"""

from .cards import compare_signals
from .compare import compare
from .markdown import render_markdown
from .report import ScoreChangeReport

__all__ = ["ScoreChangeReport", "compare", "compare_signals", "render_markdown"]

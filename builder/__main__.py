"""`python -m reasonboard`: the command line, for a process that has no `reasonboard` script
on its PATH (`serve --watch` runs each rebuild this way, with the same interpreter)."""

from .cli import main

main()

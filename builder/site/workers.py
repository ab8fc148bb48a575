"""The render phase's processes: pages rendered by forked workers on every core (issue 16).

After the page model is planned the build forks: this process and the workers take jobs from a
shared counter (job 0 the data files, the others `CHUNK` pages each), so no process idles
while work is left and a worker that gets no core costs little. A worker decides reuse,
renders and, given the writer's stage, stages its pages itself, sending back only small
records, so nothing as large as a page crosses a pipe. The page model reaches the workers
as copy-on-write memory (the job is set in a module global before the fork; nothing is
pickled on the way in). The files are the same whatever the number of workers: rendering
is a pure function of the page and what all pages share, and the writer stages every file
before any replaces the site, so a failure in any process leaves the site untouched.

This module knows nothing of templates: a job is given the function that renders a page.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Iterator, Sequence

from ..forking import can_fork, end, orphan_guard, receive_outcome, send_outcome
from .views.base import Deferred, Page, made
from .writer import UNCHANGED, Output, Stage

#: Pages per job: small enough that the processes finish together.
CHUNK = 16

#: What forked workers work on, set before the fork (the page model reaches them as
#: copy-on-write memory; nothing is pickled on the way in, only records come back).
_FORKED: "tuple[PageJob, Any] | None" = None

#: One output's outcome: (path, digest for the build state, kept as it is, what the writer
#: gets, the page's key for the build state when it has one).
Record = tuple[str, str | None, bool, Output, str | None]


@dataclass
class PageJob:
    """Rendering the pages: what every page shares, which pages there are, and the files
    made `alongside` them (the build's data files)."""

    #: The pages in output order; a `Deferred` one is made by the process that renders it.
    pages: Sequence[Page | Deferred]
    #: A page's bytes (the templates).
    render: Callable[[Page], bytes]
    #: A page's digest and whether its file on disk can stay (reuse.py), when reusing.
    decide: Callable[[Page], tuple[str | None, bool]] | None
    stage: Stage | None
    alongside: Callable[[], Iterable[tuple[str, bytes]]] | None = None
    #: A deferred page's key, whether its file can stay without making the page, and the
    #: digest recorded with it (reuse.py), when reusing.
    decide_by_key: Callable[[Deferred], tuple[str | None, bool, str | None]] | None = None
    #: Whether this process takes jobs too (tests turn it off to have every job run in a
    #: worker, whichever process would have been first).
    parent_works: ClassVar[bool] = True

    def one(self, index: int, forked: bool = False) -> Record:
        """Page `index`: kept (its key, or else its digest, is that of the file on disk), or
        rendered; in a worker with a stage, also staged, so only a `Staged` record goes back."""
        entry = self.pages[index]
        key = None
        if self.decide_by_key is not None and isinstance(entry, Deferred) and entry.key is not None:
            key, keep, digest = self.decide_by_key(entry)
            if keep:
                return entry.path, digest, True, UNCHANGED, key
        page = made(entry)
        digest, keep = None, False
        if self.decide is not None:
            digest, keep = self.decide(page)
        if keep:
            return page.path, digest, True, UNCHANGED, key
        body = self.render(page)
        return page.path, digest, False, self._out(page.path, body, forked), key

    def _out(self, path: str, data: bytes, forked: bool) -> Output:
        return self.stage.put(path, data) if forked and self.stage is not None else data

    def jobs(self) -> int:
        """Job 0 makes the `alongside` files (when there are any), the others a chunk of pages each."""
        return (self.alongside is not None) + -(-len(self.pages) // CHUNK)

    def job(self, number: int, forked: bool = False) -> list[Record]:
        if self.alongside is not None:
            if number == 0:
                return [(path, None, False, self._out(path, data, forked), None) for path, data in self.alongside()]
            number -= 1
        start = number * CHUNK
        return [self.one(index, forked) for index in range(start, min(start + CHUNK, len(self.pages)))]

    def run(self, workers: int) -> Iterator[Record]:
        """Every output's record. With more than one worker, this process and `workers - 1`
        forked ones take the jobs in turn from a shared counter, so this process is never
        idle while work is left, and a worker that gets no core (a busy machine) costs
        little: this process then does most jobs itself. The workers' records come at the
        end; the files are the same whichever process made them."""
        global _FORKED
        if not can_fork(workers) or len(self.pages) < 2 * CHUNK:
            for number in range(self.jobs()):
                yield from self.job(number)
            return
        context = multiprocessing.get_context("fork")
        # The data files (job 0) go to the first worker, so this process never holds them
        # beside the page model (at 10,000 evaluations that is the build's peak memory).
        reserved = self.alongside is not None
        counter = context.Value("l", int(reserved))
        children = []
        _FORKED = (self, counter)
        try:
            for n in range(workers - 1):
                receive, send = context.Pipe(duplex=False)
                first = 0 if reserved and n == 0 else None
                process = context.Process(target=_work, args=(send, first, os.getpid()), daemon=True)
                process.start()
                send.close()
                children.append((process, receive))
            _FORKED = None
            while self.parent_works and (number := _take(counter)) < self.jobs():
                yield from self.job(number)
            for process, receive in children:
                yield from receive_outcome(receive, process, "render worker")
                process.join()
        finally:
            _FORKED = None
            for process, _receive in children:
                end(process)


def _take(counter: Any) -> int:
    """The next job's number (shared between the processes)."""
    with counter.get_lock():
        number = int(counter.value)
        counter.value = number + 1
    return number


def _work(send: Any, first: int | None, parent: int) -> None:
    """A forked worker: its `first` job if it has one, then jobs until none are left, then
    every record in one message (or the error that stopped it, which the parent raises)."""
    orphan_guard(parent)
    assert _FORKED is not None
    job, counter = _FORKED

    def records() -> list[Record]:
        done: list[Record] = job.job(first, forked=True) if first is not None else []
        while (number := _take(counter)) < job.jobs():
            done.extend(job.job(number, forked=True))
        return done

    send_outcome(send, records, "a render worker")

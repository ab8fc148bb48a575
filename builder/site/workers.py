"""The render pool: pages rendered by forked workers on every core, the build's one fork.

After the page model is planned, `workers - 1` processes are forked; they and this process
take jobs from a shared counter (first the jobs that make other files `alongside` the pages:
the data files, then the published samples files in parts; then `CHUNK` pages each), so no
process idles while work is left. The page model reaches the workers as copy-on-write memory
(the job is set in a module global before the fork; nothing is pickled on the way in); a
worker stages its pages itself and sends back small records only. The files are the same
whatever the number of workers, and the writer stages every file before any replaces the
site, so a failure in any process leaves the site untouched.

The pool forks a process with one thread: the build closes every DuckDB connection (whose
threads a child would inherit stopped, holding their locks) before the pages are made
(tests/test_incremental.py checks it). A worker ends with its parent, and ends with its
records or with the error that stopped it, which this process raises as its own. Off Linux
(`can_fork`), or when `REASONBOARD_WORKERS=1` asks for one process, every job runs here.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Iterator, NamedTuple, Sequence

from ..interrupt import ignore_in_child
from .views.base import Deferred, Page, made
from .writer import Output, Stage, Staged

#: Pages per job: small enough that the processes finish together.
CHUNK = 16

#: What forked workers work on, set just before the fork.
_FORKED: tuple[PageJob, Any] | None = None


class Record(NamedTuple):
    """One output: its path and what the writer gets; for a page, its key (reuse.py) and
    whether it was rendered (or the previous build's file kept)."""

    path: str
    out: Output
    key: str = ""
    rendered: bool = False


def processes() -> int:
    """`REASONBOARD_WORKERS`, else one process per core this process may run on."""
    try:
        return max(1, int(os.environ["REASONBOARD_WORKERS"]))
    except (KeyError, ValueError):
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def can_fork(workers: int) -> bool:
    """Only on Linux: a forked child of a macOS process that used the system's frameworks
    (Accelerate, which numpy may call there) can crash or hang."""
    return workers > 1 and sys.platform.startswith("linux")


@dataclass
class PageJob:
    """The pages in output order (a `Deferred` one is made by the process that renders it),
    how one is rendered, and the jobs that make other files `alongside` them (the data
    files, then the published samples files in parts: each a job of its own, so the
    processes share them rather than one process writing every file while the others wait
    at the end). With `reuse`
    (a page's key, and the previous build's file that key vouches for, if any), a page with
    such a file is kept."""

    pages: Sequence[Page | Deferred]
    render: Callable[[Page], bytes]
    stage: Stage | None
    alongside: Sequence[Callable[[], Iterable[tuple[str, Output]]]] = ()
    reuse: Callable[[Page], tuple[str, Staged | None]] | None = None
    #: Whether this process takes jobs too (tests turn it off to run every job in a worker).
    parent_works: ClassVar[bool] = True

    def jobs(self) -> int:
        return len(self.alongside) + -(-len(self.pages) // CHUNK)

    def job(self, number: int, forked: bool = False) -> list[Record]:
        def out(path: str, data: Output) -> Output:
            return self.stage.put(path, data) if forked and self.stage is not None and isinstance(data, bytes) else data

        if number < len(self.alongside):
            return [Record(path, out(path, data)) for path, data in self.alongside[number]()]
        number -= len(self.alongside)
        records = []
        for entry in self.pages[number * CHUNK:(number + 1) * CHUNK]:
            page = made(entry)
            key, kept = self.reuse(page) if self.reuse is not None else ("", None)
            records.append(Record(page.path, kept, key) if kept is not None
                           else Record(page.path, out(page.path, self.render(page)), key, rendered=True))
        return records

    def run(self, workers: int) -> Iterator[Record]:
        """Every output's record: this process's as it goes, the workers' at the end."""
        global _FORKED
        if not can_fork(workers) or len(self.pages) < 2 * CHUNK:
            for number in range(self.jobs()):
                yield from self.job(number)
            return
        context = multiprocessing.get_context("fork")
        # Job 0 (the data files) goes to the first worker, so this process never holds them
        # beside the page model (at 10,000 evaluations that is the build's peak memory).
        reserved = bool(self.alongside)
        counter = context.Value("l", int(reserved))
        children = []
        _FORKED = (self, counter)
        try:
            for n in range(workers - 1):
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_work, daemon=True,
                                          args=(send, 0 if reserved and n == 0 else None, os.getpid()))
                process.start()
                send.close()
                children.append((process, receive))
            _FORKED = None
            while self.parent_works and (number := _take(counter)) < self.jobs():
                yield from self.job(number)
            for process, receive in children:
                try:
                    status, payload = receive.recv()
                except EOFError:  # killed, say: an error, never a wait
                    process.join()
                    raise RuntimeError(f"render worker {process.pid} ended without its result "
                                       f"(exit code {process.exitcode})") from None
                if status == "error":
                    raise payload
                yield from payload
                process.join()
        finally:
            _FORKED = None
            for process, _ in children:
                if process.is_alive():
                    process.kill()
                process.join()


def _take(counter: Any) -> int:
    """The next job's number (shared between the processes)."""
    with counter.get_lock():
        number = int(counter.value)
        counter.value = number + 1
    return number


#: prctl(2): the signal a process gets when its parent thread dies.
PR_SET_PDEATHSIG = 1


def _work(send: Any, first: int | None, parent: int) -> None:
    """A forked worker: its `first` job if it has one, then jobs until none are left, then
    every record in one message (or the error that stopped it, which the parent raises).
    It ends with its parent (a CI job cancelled, the machine out of memory) and leaves a
    Ctrl-C to the parent, which ends it."""
    ignore_in_child()
    with suppress(OSError, AttributeError):  # no prctl: the pipe's end of file still ends most waits
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the guard was set
        os._exit(1)
    assert _FORKED is not None
    job, counter = _FORKED
    try:
        done: list[Record] = job.job(first, forked=True) if first is not None else []
        while (number := _take(counter)) < job.jobs():
            done.extend(job.job(number, forked=True))
        send.send(("ok", done))
    except BaseException as exc:
        exc.add_note(f"(in a render worker, pid {os.getpid()})\n" + "".join(traceback.format_exception(exc)).rstrip())
        try:
            send.send(("error", pickle.loads(pickle.dumps(exc))))
        except Exception:  # an exception that cannot cross the pipe
            send.send(("error", RuntimeError(f"in a render worker: {exc!r}")))
    finally:
        send.close()

"""The render pool: pages rendered by forked workers on every core.

The build's one fork. After the page model is planned, `workers - 1` processes are forked;
they and this process take jobs from a shared counter (job 0 the data files, the others
`CHUNK` pages each), so no process idles while work is left and a worker that gets no core
costs little. A worker renders and, given the writer's stage, stages its pages itself, sending
back only small records, so nothing as large as a page crosses a pipe. The page model reaches
the workers as copy-on-write memory (the job is set in a module global before the fork;
nothing is pickled on the way in). The files are the same whatever the number of workers:
rendering is a pure function of the page and what all pages share, and the writer stages
every file before any replaces the site, so a failure in any process leaves the site
untouched.

A worker ends with its parent (`orphan_guard`), and ends with its records or with the error
that stopped it, which this process raises as its own. Off Linux (`can_fork`), or when
`REASONBOARD_WORKERS=1` asks for one process, every job runs here, with the same output.

This module knows nothing of templates: a job is given the function that renders a page.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Iterator, NamedTuple, Sequence

from ..interrupt import ignore_in_child
from .views.base import Deferred, Page, made
from .writer import Output, Stage, Staged

#: Pages per job: small enough that the processes finish together.
CHUNK = 16

#: What forked workers work on, set before the fork (the page model reaches them as
#: copy-on-write memory; nothing is pickled on the way in, only records come back).
_FORKED: tuple[PageJob, Any] | None = None


class Record(NamedTuple):
    """One output: its path and what the writer gets; for a page, its key (reuse.py) and
    whether it was rendered (or the previous build's file kept)."""

    path: str
    out: Output
    key: str = ""
    rendered: bool = False


def processes() -> int:
    """How many processes may render: `REASONBOARD_WORKERS`, else one per core this process
    may run on."""
    try:
        return max(1, int(os.environ["REASONBOARD_WORKERS"]))
    except (KeyError, ValueError):
        pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def can_fork(workers: int) -> bool:
    """Whether to fork for `workers` processes: only on Linux, where fork is the platform's
    own way of starting a process. A forked child of a macOS process that used the system's
    frameworks (Accelerate, which numpy may call there) can crash or hang."""
    return workers > 1 and sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


@dataclass
class PageJob:
    """Rendering the pages: which pages there are, how one is rendered, and the files made
    `alongside` them (the build's data files). With `key` and `keep`, a page whose file the
    previous build left as it is for this key (`keep` gives its record) is not rendered."""

    #: The pages in output order; a `Deferred` one is made by the process that renders it.
    pages: Sequence[Page | Deferred]
    #: A page's bytes (the templates).
    render: Callable[[Page], bytes]
    stage: Stage | None
    alongside: Callable[[], Iterable[tuple[str, bytes]]] | None = None
    #: A page's key, and the previous build's file to keep for a path and key (or None).
    key: Callable[[Page], str] | None = None
    keep: Callable[[str, str], Staged | None] | None = None
    #: Whether this process takes jobs too (tests turn it off to have every job run in a
    #: worker, whichever process would have been first).
    parent_works: ClassVar[bool] = True

    def _out(self, path: str, data: bytes, forked: bool) -> Output:
        return self.stage.put(path, data) if forked and self.stage is not None else data

    def jobs(self) -> int:
        """Job 0 makes the `alongside` files (when there are any), the others a chunk of pages each."""
        return (self.alongside is not None) + -(-len(self.pages) // CHUNK)

    def job(self, number: int, forked: bool = False) -> list[Record]:
        if self.alongside is not None:
            if number == 0:
                return [Record(path, self._out(path, data, forked)) for path, data in self.alongside()]
            number -= 1
        start = number * CHUNK
        records = []
        for entry in self.pages[start:start + CHUNK]:
            page = made(entry)
            key = self.key(page) if self.key is not None else ""
            kept = self.keep(page.path, key) if key and self.keep is not None else None
            if kept is not None:
                records.append(Record(page.path, kept, key, rendered=False))
            else:
                records.append(Record(page.path, self._out(page.path, self.render(page), forked), key, rendered=True))
        return records

    def run(self, workers: int) -> Iterator[Record]:
        """Every output's record. With more than one worker, this process and `workers - 1`
        forked ones take the jobs in turn from a shared counter; the workers' records come
        at the end."""
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
                yield from _receive(receive, process)
                process.join()
        finally:
            _FORKED = None
            for process, _receive_end in children:
                _end(process)


def _take(counter: Any) -> int:
    """The next job's number (shared between the processes)."""
    with counter.get_lock():
        number = int(counter.value)
        counter.value = number + 1
    return number


def _work(send: Any, first: int | None, parent: int) -> None:
    """A forked worker: its `first` job if it has one, then jobs until none are left, then
    every record in one message (or the error that stopped it, which the parent raises)."""
    _orphan_guard(parent)
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
            pickle.loads(pickle.dumps(exc))
            send.send(("error", exc))
        except Exception:  # an exception that cannot cross the pipe
            send.send(("error", RuntimeError(f"in a render worker: {exc!r}")))
    finally:
        send.close()


def _receive(receive: Any, process: Any) -> list[Record]:
    """A worker's records; its error raised here; a worker that ended without sending
    anything (killed, say) is an error too, never a wait."""
    try:
        status, payload = receive.recv()
    except EOFError:
        process.join()
        raise RuntimeError(f"render worker {process.pid} ended without its result (exit code {process.exitcode})") from None
    if status == "error":
        raise payload
    records: list[Record] = payload
    return records


#: prctl(2): the signal a process gets when its parent thread dies.
PR_SET_PDEATHSIG = 1


def _orphan_guard(parent: int) -> None:
    """In a forked worker, first thing: end with the parent. A parent killed without
    cleaning up (a CI job cancelled, the machine out of memory) would otherwise leave its
    workers waiting forever. A Ctrl-C is the parent's to handle (it ends this process): the
    worker prints no traceback of its own."""
    ignore_in_child()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: the pipe's end of file still ends most waits
        pass
    if os.getppid() != parent:  # the parent died before the guard was set
        os._exit(1)


def _end(process: Any) -> None:
    """Stop a worker that is still running (SIGTERM, then SIGKILL) and reap it."""
    if process.is_alive():
        process.terminate()
        process.join(5)
        if process.is_alive():
            process.kill()
    process.join()

"""Work done by a forked process while this one goes on: how a build uses both cores.

A build forks three times (issue 16): the chart warm-up, and the process that ranks the
board while this one computes the signals (build.py), both at the start, while this process
holds little (`Forked` says why that matters); and the render workers (site/workers.py),
which inherit the page model as copy-on-write memory. What crosses a pipe is pickled.

A forked child never touches what it inherited of the PointsDB (DuckDB's threads do not
survive a fork, and the child exits without running any destructor), never forks again,
and ends with its result or with the error that stopped it, which this process raises as
its own; a child ends with its parent (`orphan_guard`). Off Linux (`can_fork`), or when
`REASONBOARD_WORKERS=1` asks for one process, the same work runs here (the ranking after
the signals rather than beside them), and the outputs are the same bytes.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from typing import Any, Callable, Generic, TypeVar

from .interrupt import ignore_in_child

A = TypeVar("A")
T = TypeVar("T")


def processes() -> int:
    """How many processes a build may keep busy: `REASONBOARD_WORKERS`, else one per core
    this process may run on (measured on the 2-core build machine: see the README,
    "Rebuilds")."""
    for name in ("REASONBOARD_WORKERS", "REASONBOARD_RENDER_WORKERS"):  # the second: its earlier name
        try:
            return max(1, int(os.environ[name]))
        except (KeyError, ValueError):
            pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def can_fork(workers: int) -> bool:
    """Whether to fork for `workers` processes: only on Linux, where fork is the platform's
    own way of starting a process. macOS offers it too, but a child of a process that has
    used the system's frameworks (Accelerate, which numpy's linear algebra may call there)
    can crash or hang, so there the build runs in one process, with the same output."""
    return workers > 1 and sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


#: prctl(2): the signal a process gets when its parent thread dies.
PR_SET_PDEATHSIG = 1


def orphan_guard(parent: int) -> None:
    """In a forked process, first thing: end with the parent. A parent killed without
    cleaning up (a CI job cancelled, the machine out of memory) would otherwise leave its
    children waiting forever on a pipe nobody reads. A Ctrl-C is the parent's to handle
    (it ends this process): the child prints no traceback of its own."""
    ignore_in_child()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: the pipe's end of file still ends most waits
        pass
    if os.getppid() != parent:  # the parent died before the guard was set
        os._exit(1)


def send_outcome(send: Any, work: Callable[[], Any], who: str) -> None:
    """In a forked process: ("ok", what `work` returns) through `send`, or ("error", the
    exception that stopped it, with the child's traceback as a note) for the parent to
    raise. An exception that would not survive the pipe arrives as a RuntimeError naming
    it."""
    try:
        send.send(("ok", work()))
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        exc.add_note(f"(in {who}, pid {os.getpid()})\n" + "".join(traceback.format_exception(exc)).rstrip())
        try:
            pickle.loads(pickle.dumps(exc))
            send.send(("error", exc))
        except Exception:  # an exception that cannot cross the pipe
            send.send(("error", RuntimeError(f"in {who}: {exc!r}")))
    finally:
        send.close()


def receive_outcome(receive: Any, process: Any, who: str) -> Any:
    """What `send_outcome` sent from `process`; its error raised here; a process that
    ended without sending anything (killed, say) is an error too, never a wait."""
    try:
        status, payload = receive.recv()
    except EOFError:
        process.join()
        raise RuntimeError(f"{who} {process.pid} ended without its result (exit code {process.exitcode})") from None
    if status == "error":
        raise payload
    return payload


#: What the next `Forked` process computes, set just before the fork (so the function and
#: everything it reaches are inherited, never pickled).
_WORK: "tuple[Callable[[Any], Any], str] | None" = None


class Forked(Generic[A, T]):
    """`work(value)` computed by a process forked now and given `value` later (`give`);
    `result()` waits for it.

    Forking early, while this process holds little, is the point: every page a forked
    child shares with its parent is copied on the first write by either, and a parent that
    goes on working with a large heap beside a child pays for that copy page by page (a
    third of a second of the signals at 2,500 evaluations when the child was forked after
    the store was read). The value crosses a pipe, pickled; so does the result.

    A plain process and a pipe: no pool, whose helper threads would live through the build
    and could fork a replacement worker at any moment. Use it as a context manager, so the
    process is ended even when this one fails first (a child still waiting for its value
    simply ends)."""

    def __init__(self, work: Callable[[A], T], who: str) -> None:
        global _WORK
        context = multiprocessing.get_context("fork")
        self.who = who
        self.pipe, theirs = context.Pipe()
        _WORK = (work, who)
        try:
            self.process = context.Process(target=_run_forked, args=(theirs, self.pipe, os.getpid()), daemon=True)
            self.process.start()
        except BaseException:
            self.pipe.close()
            raise
        finally:
            _WORK = None
            theirs.close()
        self._done = False
        self._result: Any = None

    def give(self, value: A) -> None:
        """The value the process works on. A process that has ended already is reported by
        `result()`, with its exit code."""
        try:
            self.pipe.send(value)
        except OSError:
            pass

    def result(self) -> T:
        """The result, once the process has made it (waited for on the first call)."""
        if not self._done:
            self._result = receive_outcome(self.pipe, self.process, self.who)
            self._done = True
        result: T = self._result
        return result

    def close(self) -> None:
        end(self.process)
        self.pipe.close()

    def __enter__(self) -> "Forked[A, T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def end(process: Any) -> None:
    """Stop a forked process that is still running (SIGTERM, then SIGKILL) and reap it."""
    if process.is_alive():
        process.terminate()
        process.join(5)
        if process.is_alive():
            process.kill()
    process.join()


def _run_forked(pipe: Any, parents_end: Any, parent: int) -> None:
    orphan_guard(parent)
    # Only the parent holds its end, so the parent ending is an end of file here.
    parents_end.close()
    assert _WORK is not None
    work, who = _WORK
    # A short life with one piece of work: reference counting frees what it drops, and a
    # cyclic collection would only walk the heap it inherited (see gcpause).
    gc.disable()
    try:
        value = pipe.recv()
    except EOFError:  # the parent ended (or failed) before it had a value to give
        return
    send_outcome(pipe, lambda: work(value), who)


class Beside(Generic[A, T]):
    """`work(value)` computed beside this process when it may fork (`processes()`), by a
    process forked when this object is made; else here, when `result()` is first asked
    for. The caller reads the same either way."""

    def __init__(self, work: Callable[[A], T], who: str, workers: int | None = None) -> None:
        self._work = work
        self._forked = Forked(work, who) if can_fork(processes() if workers is None else workers) else None
        self._value: tuple[A] | None = None
        self._result: tuple[T] | None = None

    @property
    def forked(self) -> bool:
        """Whether another process does the work (and so takes a core)."""
        return self._forked is not None

    def give(self, value: A) -> None:
        if self._forked is not None:
            self._forked.give(value)
        else:
            self._value = (value,)

    def result(self) -> T:
        if self._forked is not None:
            return self._forked.result()
        if self._result is None:
            assert self._value is not None, "give() the value first"
            self._result = (self._work(self._value[0]),)
        return self._result[0]

    def __enter__(self) -> "Beside[A, T]":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._forked is not None:
            self._forked.close()

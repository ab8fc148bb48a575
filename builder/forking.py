"""Work done by a forked process while this one goes on: how a build uses both cores.

A build forks three times (issue 16): the chart warm-up at its start, the leaderboard
statistics while this process computes the signals (build.py), and the render workers
(site/workers.py). Forking hands the child everything this process holds as copy-on-write
memory, so nothing is pickled on the way in; only the result comes back, through a pipe.

A forked child never touches what it inherited of the PointsDB (DuckDB's threads do not
survive a fork, and the child exits without running any destructor), never forks again,
and ends with its result or with the error that stopped it, which this process raises as
its own. Off Linux (`can_fork`), or when `REASONBOARD_WORKERS=1` asks for one process, the
same work runs here, in the same order, and the outputs are the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")


def processes() -> int:
    """How many processes a build may keep busy: `REASONBOARD_WORKERS`, else one per core
    this process may run on (measured on the 2-core build machine: see the README,
    "Rebuilds")."""
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
    own way of starting a process. macOS offers it too, but a child of a process that has
    used the system's frameworks (Accelerate, which numpy's linear algebra may call there)
    can crash or hang, so there the build runs in one process, with the same output."""
    return workers > 1 and sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def send_outcome(send: Any, work: Callable[[], Any], who: str) -> None:
    """In a forked process: ("ok", what `work` returns) through `send`, or ("error", the
    exception that stopped it) for the parent to raise."""
    try:
        send.send(("ok", work()))
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        try:
            send.send(("error", exc))
        except Exception:  # an exception that cannot be pickled
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
_MAKE: "tuple[Callable[[], Any], str] | None" = None


class Forked(Generic[T]):
    """`make()` computed by a forked process while this one goes on; `result()` waits for it.

    A plain process and a pipe: no pool, whose helper threads would live through the build
    and could fork a replacement worker at any moment. Use it as a context manager, so the
    process is ended even when this one fails first."""

    def __init__(self, make: Callable[[], T], who: str) -> None:
        global _MAKE
        context = multiprocessing.get_context("fork")
        self.who = who
        self.receive, send = context.Pipe(duplex=False)
        _MAKE = (make, who)
        try:
            self.process = context.Process(target=_run_forked, args=(send,), daemon=True)
            self.process.start()
        except BaseException:
            self.receive.close()
            raise
        finally:
            _MAKE = None
            send.close()
        self._done = False
        self._result: Any = None

    def result(self) -> T:
        """The value, once the process has made it (waited for on the first call)."""
        if not self._done:
            self._result = receive_outcome(self.receive, self.process, self.who)
            self._done = True
        result: T = self._result
        return result

    def close(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.receive.close()

    def __enter__(self) -> "Forked[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run_forked(send: Any) -> None:
    assert _MAKE is not None
    make, who = _MAKE
    send_outcome(send, make, who)


class Beside(Generic[T]):
    """`make()` computed beside this process when it may fork (`processes()`), else here,
    when `result()` is first asked for: the caller reads the same either way."""

    def __init__(self, make: Callable[[], T], who: str, workers: int | None = None) -> None:
        self._make = make
        self._forked = Forked(make, who) if can_fork(processes() if workers is None else workers) else None

    def result(self) -> T:
        if self._forked is not None:
            return self._forked.result()
        if not hasattr(self, "_value"):
            self._value = self._make()
        return self._value

    def __enter__(self) -> "Beside[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._forked is not None:
            self._forked.close()

"""forking.py: work done by a forked process while the build goes on (the chart warm-up,
the statistics beside the signals, the render workers)."""

from __future__ import annotations

import os

import pytest
from reasonboard.forking import Beside, Forked, processes


def _fails(value):
    raise ValueError("no bundle")


def _dies(value):
    os._exit(3)


def test_a_forked_result_arrives():
    with Forked(lambda value: [value, {"pid": os.getpid()}], "a test") as made:
        made.give(("a.txt", b"a"))  # given after the fork: crosses the pipe
        files, child = made.result()
        assert made.result()[0] == ("a.txt", b"a")  # asked twice, received once
    assert files == ("a.txt", b"a")
    assert child["pid"] != os.getpid()  # made in another process


@pytest.mark.parametrize("make, error, message", [(_fails, ValueError, "no bundle"),
                                                  (_dies, RuntimeError, "exit code 3")])
def test_a_failure_in_the_forked_process_arrives_too(make, error, message):
    """The error that stopped the process, or, when it dies without a word, an error naming
    its exit code: never a wait."""
    with Forked(make, "a test") as failed:
        failed.give(None)
        with pytest.raises(error, match=message):
            failed.result()


@pytest.mark.parametrize("workers", [1, 2])
def test_beside_gives_the_same_value_with_one_process_or_two(workers):
    calls = []

    def make(n):
        calls.append(1)
        return {"pid": os.getpid(), "value": sum(range(n))}

    with Beside(make, "a test", workers=workers) as beside:
        beside.give(10)
        assert beside.result()["value"] == 45
        assert beside.result()["value"] == 45
    # One process: computed here, once; two: computed by the forked one.
    assert (calls == [1]) == (workers == 1)
    assert (beside.result()["pid"] == os.getpid()) == (workers == 1)


def test_a_process_never_given_its_value_ends_with_the_block():
    with Forked(_fails, "a test") as waiting:
        process = waiting.process
        assert process.is_alive()
    assert not process.is_alive()


def _input_error(value):
    from reasonboard.errors import InputError

    raise InputError("data/points/a.csv", "total must be at least 1", line=3)


def test_an_input_error_in_the_forked_process_arrives_as_itself():
    """The user's one error type crosses the pipe whole (path, line, problem), with the
    child's traceback as a note."""
    from reasonboard.errors import InputError

    with Forked(_input_error, "a test") as failed:
        failed.give(None)
        with pytest.raises(InputError) as raised:
            failed.result()
    assert str(raised.value) == "data/points/a.csv, line 3: total must be at least 1"
    assert (raised.value.path, raised.value.line) == ("data/points/a.csv", 3)
    assert any("in a test" in note and "_input_error" in note for note in raised.value.__notes__)


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


def _unpicklable(value):
    raise _Unpicklable("deep inside")


def test_an_error_that_cannot_cross_the_pipe_arrives_named():
    with Forked(_unpicklable, "a test") as failed:
        failed.give(None)
        with pytest.raises(RuntimeError, match="in a test: _Unpicklable"):
            failed.result()


def test_a_forked_process_ends_with_its_parent(tmp_path):
    """A parent killed without cleaning up (SIGKILL: no `with` block ends) must not leave its
    child waiting for a value forever."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import os, sys, time\n"
        "from reasonboard.forking import Forked\n"
        "f = Forked(lambda value: value, 'orphan test')\n"
        "print(f.process.pid, flush=True)\n"
        "time.sleep(60)\n", encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(200):  # the child gets SIGKILL when its parent dies
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the forked process outlived its parent")


def test_the_number_of_processes_is_the_users_to_choose(monkeypatch):
    monkeypatch.setenv("REASONBOARD_WORKERS", "1")
    assert processes() == 1
    monkeypatch.setenv("REASONBOARD_WORKERS", "3")
    assert processes() == 3
    monkeypatch.setenv("REASONBOARD_WORKERS", "many")  # not a number: one per core
    assert processes() >= 1
    monkeypatch.delenv("REASONBOARD_WORKERS")
    monkeypatch.setenv("REASONBOARD_RENDER_WORKERS", "1")  # its earlier name
    assert processes() == 1

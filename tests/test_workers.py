"""site/workers.py: the render pool, the build's one fork."""

from __future__ import annotations

import pytest
from reasonboard.errors import InputError
from reasonboard.site import workers
from reasonboard.site.views.base import Page
from reasonboard.site.workers import PageJob, processes

PAGES = [Page(path=f"p{i}.html", title=str(i), template="content.html", simulated=False, description="")
         for i in range(3 * workers.CHUNK)]


def _render(page: Page) -> bytes:
    return page.title.encode()


def _records(job: PageJob, n: int) -> dict[str, bytes]:
    return {record.path: record.out for record in job.run(n)}  # type: ignore[misc]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_same_outputs_with_any_number_of_workers(n):
    job = PageJob(PAGES, _render, stage=None, alongside=[lambda: [("data/x.json", b"{}")]])
    assert _records(job, n) == {"data/x.json": b"{}", **{p.path: p.title.encode() for p in PAGES}}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_files_made_alongside_in_several_jobs_all_arrive_once(n):
    """The data files and the samples files' parts are jobs of their own, which any process
    may take: every file arrives, once, whatever the number of workers."""
    parts = [lambda k=k: [(f"data/{k}-{i}.bin", bytes([k, i])) for i in range(3)] for k in range(5)]
    found = [record.path for record in PageJob(PAGES, _render, stage=None, alongside=parts).run(n)]
    assert sorted(found) == sorted([f"data/{k}-{i}.bin" for k in range(5) for i in range(3)] + [p.path for p in PAGES])


def _fails(page: Page) -> bytes:
    if page.path == "p40.html":
        raise InputError("data/points/a.csv", "total must be at least 1", line=3)
    return b""


def test_an_input_error_in_a_worker_arrives_as_itself(monkeypatch):
    """The user's one error type crosses the pipe whole (path, line, problem), with the
    worker's traceback as a note."""
    monkeypatch.setattr(PageJob, "parent_works", False)  # every page in a worker
    with pytest.raises(InputError) as raised:
        _records(PageJob(PAGES, _fails, stage=None), 2)
    assert str(raised.value) == "data/points/a.csv, line 3: total must be at least 1"
    assert any("render worker" in note for note in raised.value.__notes__)


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


def _unpicklable(page: Page) -> bytes:
    raise _Unpicklable("deep inside")


def test_an_error_that_cannot_cross_the_pipe_arrives_named(monkeypatch):
    monkeypatch.setattr(PageJob, "parent_works", False)
    with pytest.raises(RuntimeError, match="in a render worker: _Unpicklable"):
        _records(PageJob(PAGES, _unpicklable, stage=None), 2)


def test_the_number_of_processes_is_the_users_to_choose(monkeypatch):
    monkeypatch.setenv("REASONBOARD_WORKERS", "1")
    assert processes() == 1
    monkeypatch.setenv("REASONBOARD_WORKERS", "3")
    assert processes() == 3
    monkeypatch.setenv("REASONBOARD_WORKERS", "many")  # not a number: one per core
    assert processes() >= 1

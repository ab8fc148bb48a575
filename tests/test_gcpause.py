"""gcpause: the collector's pauses and freezes around the build's large heaps."""

from __future__ import annotations

import gc

from reasonboard.gcpause import long_lived, no_cyclic_gc, settle


def test_settle_freezes_only_inside_a_long_lived_block():
    gc.unfreeze()
    settle()
    assert gc.get_freeze_count() == 0  # a test or a library caller keeps its objects collectable
    with long_lived():
        kept = [object() for _ in range(10)]  # noqa: F841 - alive when settled
        settle()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_only_the_outermost_long_lived_block_unfreezes():
    gc.unfreeze()
    with long_lived() as freeze:
        freeze()
        frozen = gc.get_freeze_count()
        with long_lived():
            settle()
        assert gc.get_freeze_count() >= frozen  # the inner block left the outer block's freeze
    assert gc.get_freeze_count() == 0


def test_no_cyclic_gc_restores_the_collector_state():
    assert gc.isenabled()
    with no_cyclic_gc():
        assert not gc.isenabled()
        with no_cyclic_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

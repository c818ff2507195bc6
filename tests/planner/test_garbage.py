"""``planner.garbage.collection_paused``: automatic collection off while planning, back on
(and planning's cyclic garbage freed) when the outermost planning ends."""

from __future__ import annotations

import gc
import threading
import weakref

from sparkwire.planner.garbage import collection_paused


class _Cyclic:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_paused_within_nested_and_freed_after() -> None:
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner one leaving does not resume
        garbage = weakref.ref(_Cyclic())
        assert garbage() is not None  # a cycle waits for the collector
    assert gc.isenabled()
    assert garbage() is None  # collected on leaving the outermost pause


def test_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_resumed_after_an_error_and_across_threads() -> None:
    entered, leave = threading.Event(), threading.Event()

    def plan() -> None:
        with collection_paused():
            entered.set()
            assert leave.wait(10)

    other = threading.Thread(target=plan)
    other.start()
    assert entered.wait(10)
    try:
        with collection_paused():
            raise ValueError("planning failed")
    except ValueError:
        pass
    assert not gc.isenabled()  # the other thread still plans
    leave.set()
    other.join(10)
    assert gc.isenabled()

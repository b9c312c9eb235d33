"""Waiting on a condition, never on a duration (docs/testing.md, "How tests wait").

A test waits for the event it means: a file appears, a process is gone, a server answers. The timeout is a bound
that keeps a broken product from hanging the suite, never a measurement: it is generous, and a test never asserts
that something took less than some time. When the bound passes, the failure says what did not happen."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable, Optional, TypeVar

T = TypeVar("T")

# How often a condition is checked: often enough that a test ends soon after its event, seldom enough that the
# checks cost nothing next to what they wait for.
POLL_S = 0.05
# The bound when a caller names none: far longer than any of the tests' events take on a loaded 2-core machine.
PATIENCE_S = 120.0


class WaitTimeout(AssertionError):
    """A condition did not hold within its bound: a test failure that says what did not happen."""


def _failure(what: str, timeout: float, detail: Optional[Callable[[], object]]) -> WaitTimeout:
    at_the_end = "" if detail is None else f"; at the end: {detail()}"
    return WaitTimeout(f"{timeout:g} s passed waiting for {what}{at_the_end}")


def _check(condition: Callable[[], T], deadline: float, what: str, timeout: float,
           detail: Optional[Callable[[], object]]) -> Optional[T]:
    """The condition's value when it is true; None when it is false and the bound has not passed; past the bound,
    WaitTimeout."""
    value = condition()
    if value:
        return value
    if time.monotonic() >= deadline:
        raise _failure(what, timeout, detail)
    return None


def until(condition: Callable[[], T], what: str, timeout: float = PATIENCE_S, poll: float = POLL_S,
          detail: Optional[Callable[[], object]] = None) -> T:
    """Calls `condition` until it returns something true, and returns that; fails with WaitTimeout naming `what`
    (what the test waits for, e.g. "the agent's exit") when `timeout` seconds pass first, with what `detail()`
    gives then (the state that kept the condition false)."""
    deadline = time.monotonic() + timeout
    while not (value := _check(condition, deadline, what, timeout, detail)):
        time.sleep(poll)
    return value


async def until_async(condition: Callable[[], T], what: str, timeout: float = PATIENCE_S,
                      poll: float = POLL_S, detail: Optional[Callable[[], object]] = None) -> T:
    """until() for a coroutine: the event loop runs between the checks (a condition fed by a task on it)."""
    deadline = time.monotonic() + timeout
    while not (value := _check(condition, deadline, what, timeout, detail)):
        await asyncio.sleep(poll)
    return value


class Background:
    """A blocking call run on a thread of its own, for a test that acts while it runs (kills its sandbox, sends
    its input); result() then gives its value or raises its exception, as calling it would have."""

    def __init__(self, call: Callable[[], T], what: str):
        self.what = what
        self._outcome: dict = {}
        self._thread = threading.Thread(target=self._run, args=(call,), name=f"test: {what}", daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], T]) -> None:
        try:
            self._outcome["value"] = call()
        except BaseException as error:  # handed to the test by result(), as the call raised it
            self._outcome["error"] = error

    def result(self, timeout: float = PATIENCE_S) -> T:
        """Waits for the call to return; fails with WaitTimeout if it has not within `timeout` seconds (it goes
        on in its daemon thread), rather than hang the suite on a call the product let hang."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise WaitTimeout(f"{timeout:g} s passed waiting for {self.what} to return")
        if "error" in self._outcome:
            raise self._outcome["error"]
        return self._outcome["value"]


def returned(call: Callable[[], T], what: str, timeout: float = PATIENCE_S) -> T:
    """Calls `call` and gives its value or raises its exception, failing with WaitTimeout if it has not returned
    within `timeout` seconds: for a test whose point is that a call returns at all, where the product could let it
    hang."""
    return Background(call, what).result(timeout)

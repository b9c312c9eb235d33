"""Environment variables set for longer than one test (a module's server and the E2B_* variables that point the
SDKs at it): pytest's monkeypatch undoes its changes after each test, so a module-scoped fixture uses this."""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Mapping


@contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """os.environ with `variables` set while the block runs, and as it was before once it ends."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

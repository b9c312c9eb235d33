"""The host's wall clock, which e2beval's timestamps read too, for asserting where the product put a moment (a
sandbox's end: the instant it took the call plus the timeout asked) by the instants the test saw around the call,
never by a duration it measured. In whole milliseconds, rounded outwards so that the bracket holds whatever the
timestamps' precision (serve's RFC 3339 has milliseconds, the local sandbox's float seconds)."""
from __future__ import annotations

import math
import time
from datetime import datetime


def before_ms() -> int:
    """Now, rounded down: taken before the call, it is at or before the instant the product read."""
    return math.floor(time.time() * 1000)


def after_ms() -> int:
    """Now, rounded up: taken after the call, it is at or after the instant the product read."""
    return math.ceil(time.time() * 1000)


def ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)

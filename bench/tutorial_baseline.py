"""The tutorial's regexes in Python's re, timed on the bench's inputs; prints scan and extract MB/s."""
import re
import sys
import time
from pathlib import Path

UNSAFE = [re.compile(p) for p in (r"import socket", r"import requests", r"import urllib", r"os.system",
                                  r"subprocess", r"eval\(", r"exec\(", r"open\('/etc", r"open\('/proc",
                                  r"__import__\(")]
FENCED = re.compile(r"```(?:\s*python)?\s*\r?\n(.*?)```", re.DOTALL | re.IGNORECASE)


def rate(items, fn):
    total = sum(len(item.encode()) for item in items)
    fn(items)
    rounds, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.5:
        fn(items)
        rounds += 1
    return total * rounds / (time.perf_counter() - start) / 1e6


directory = Path(sys.argv[1])
sources = (directory / "sources.bin").read_text().split("\0")[:-1]
answers = (directory / "answers.bin").read_text().split("\0")[:-1]
scan = rate(sources, lambda items: [any(p.search(s) for p in UNSAFE) for s in items])
extract = rate(answers, lambda items: [FENCED.search(a) for a in items])
print(f"{scan:.1f} {extract:.1f}")

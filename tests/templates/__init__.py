# A package, so pytest imports this directory's conftest.py as templates.conftest: as a top-level `conftest` it
# would replace tests/serve/conftest.py, whose tests `from conftest import ServeProcess`, when both directories
# are collected in one run (scripts/test.sh).

"""Fit the learned turn ranking on the five dev conversations, leave one out (see
:mod:`cogmem.bench.fit_ranking`). Ingest first with cv5.py's ``--keep``:

    python benchmarks/cv5.py ../shared/data/locomo-dev.json ../shared/data/realtalk-dev.json \
        --keep --set previous=0.7
    python benchmarks/fit_ranking.py ../shared/data/locomo-dev.json \
        ../shared/data/realtalk-dev.json --check-search

Results go to ``benchmarks/results/fit_ranking.md`` / ``.json``; the configuration fitted on
all five to ``benchmarks/results/fit_ranking.config.json`` (``COGMEM_SEARCH_CONFIG``).
"""

from __future__ import annotations

from cogmem.bench.fit_ranking import main

if __name__ == "__main__":
    raise SystemExit(main())

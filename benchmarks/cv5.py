"""Five-fold leave-one-conversation-out cross-validation over the dev files, with the flat
baselines in the same run (see :mod:`cogmem.bench.cv`):

    python benchmarks/cv5.py ../shared/data/locomo-dev.json ../shared/data/realtalk-dev.json

A small slice for CI: ``--questions 5 --samples conv-26 realtalk-5``. Results go to
``benchmarks/results/cv5.md`` and ``cv5.json`` (``--out``, ``--name``).
"""

from __future__ import annotations

from cogmem.bench.cv import main

if __name__ == "__main__":
    raise SystemExit(main())

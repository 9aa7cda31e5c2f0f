"""``python -m cogmem.cli``."""

from cogmem.cli.app import app

app()

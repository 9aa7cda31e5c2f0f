"""CLI command groups that live outside ``cogmem.cli``; each module has ``register(app)``."""

MODULES = ("consolidate", "data", "bench")

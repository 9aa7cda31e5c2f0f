"""The ``cogmem`` command line: ``cogmem.cli.app`` is the console script's entry point."""

from cogmem.cli.app import app

__all__ = ["app"]

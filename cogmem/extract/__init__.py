"""Extraction: turns become typed records, each quoting its turn verbatim."""

from cogmem.extract.base import ExtractionContext, Extractor, check_quotes
from cogmem.extract.heuristic import HeuristicExtractor

__all__ = ["ExtractionContext", "Extractor", "HeuristicExtractor", "check_quotes"]

"""The rules engine: tiles, rule systems, hand analysis (pure Python + numpy; no vision, no web)."""

__version__ = "0.1.0"

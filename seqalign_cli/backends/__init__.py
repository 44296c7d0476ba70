"""Backends: one dispatch point that picks the engine for a run."""

"""Seeing the table: detector, capture, zones, stable snapshots and events. Knows nothing of Flask."""

"""Command-line entry point of Rummy Referee (`rummy-referee`).

Kept apart from `referee/` so that the pure rules engine imports nothing from `vision/` or `web_ui/`.
"""

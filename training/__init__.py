"""Training and measuring the card detector, offline (not part of the product): run each tool with
`python -m training.<tool>` from the repository root (see models/MODEL.md and training/reproduce.sh)."""

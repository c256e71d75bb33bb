"""The command handlers of `rummy-referee` (one module per sub-command: replay, detect, track, serve).

Each takes the parsed arguments and returns the exit status; the library code they call lives where it
belongs (`referee.replay`, `vision.images`, `vision.tracking`, `web_ui`).  Each is imported only when its
command runs, so `replay` works without OpenCV or torch.
"""

"""`rummy-referee` command line: replay, detect, track, serve, enrol (see shared/contracts/game-log.md).

Each sub-command imports its package lazily, so `replay` works without loading OpenCV or torch.
"""

from __future__ import annotations

import argparse
import math
import sys


def _bounded(kind, flag: str, lo: float, hi: float, low_open: bool = False, what: str = "a number"):
    """An argparse type: `kind` (int/float) from `lo` to `hi` (more than `lo` with `low_open`), finite."""
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be {what}, not {text!r}") from None
        if not math.isfinite(v) or v > hi or v < lo or (low_open and v == lo):
            low = f"more than {lo}" if low_open else f"from {lo}"
            raise argparse.ArgumentTypeError(f"{flag} must be {low} to {hi}, not {text}")
        return v
    return parse


_positive_fps = _bounded(float, "--fps", 0, 1000, low_open=True, what="a number of frames per second")
_port = _bounded(int, "--port", 0, 65535, what="a whole number (0: any free port)")
_conf = _bounded(float, "--conf", 0.0, 1.0, what="a number from 0 to 1")
_seconds = _bounded(float, "--seconds", 1, 3600, what="a number of seconds")
_scenes = _bounded(int, "--scenes", 12, 5000, what="a whole number")


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rummy-referee", description="Table-side Rummy referee")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("replay", help="replay a JSON Lines game log and print hands, scores and totals")
    r.add_argument("log", help="game log (JSON Lines), '-' for standard input")
    r.add_argument("--json", action="store_true", help="print the replay result as JSON")

    d = sub.add_parser("detect", help="list the cards face up in photos")
    d.add_argument("images", nargs="+", help="image files")
    d.add_argument("--json", action="store_true", help="print JSON (the contract's format)")
    d.add_argument("--model", default=None, help="weights file (.pt or .onnx); default: the shipped model")
    d.add_argument("--backend", choices=["auto", "torch", "onnx"], default="auto")
    d.add_argument("--conf", type=_conf, default=None, help="confidence threshold (0..1)")
    d.add_argument("--decks", type=int, choices=[1, 2], default=1,
                   help="decks on the table: the same card is reported at most this many times per photo")
    d.add_argument("--deck", default=None, metavar="DECK",
                   help="read the cards of this taught deck (a folder written by `enrol`, or a deck's name)")
    d.add_argument("--aspect", choices=["auto", "none"], default="auto",
                   help="auto: a square photo squashed across (a 16:9 webcam frame saved as 640x640) is read "
                        "stretched back; none: every photo as it comes")

    t = sub.add_parser("track", help="infer the game log from a table recording")
    t.add_argument("source", help="video file, folder of images, camera index or stream URL")
    t.add_argument("--layout", required=True, help="LAYOUT.json: table zones")
    t.add_argument("--match", required=True, help="MATCH.json: a match object plus 'dealer'")
    t.add_argument("--log", required=True, help="where to write the inferred game log (JSON Lines)")
    t.add_argument("--fps", type=_positive_fps, default=10.0, help="frame rate of a folder of images")
    t.add_argument("--json", action="store_true", help="also print the replay result of the log")
    t.add_argument("--model", default=None, help="detector weights (default: the shipped model)")
    t.add_argument("--no-motion-gate", action="store_true",
                   help="run the detector on every frame (default: only when the picture changed)")
    t.add_argument("--deck", default=None, metavar="DECK", help="read the cards of this taught deck (see enrol)")

    s = sub.add_parser("serve", help="start the dashboard")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=_port, default=5000)
    s.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="LAN mode: another name the dashboard answers to (repeatable; e.g. a DNS name)")
    s.add_argument("--db", default=None, help="SQLite file (default: in the user's data folder)")
    s.add_argument("--pin", default=None, help="PIN required for changes (required with a non-local host)")
    s.add_argument("--camera", default=None, help="camera source: index, video file, folder or URL")
    s.add_argument("--layout", default=None, help="table layout JSON for the camera")
    s.add_argument("--demo", action="store_true", help="open on the bundled demo recording")
    s.add_argument("--no-motion-gate", action="store_true",
                   help="camera: run the detector on every frame (default: only when the picture changed)")
    s.add_argument("--no-browser", action="store_true", help="do not try to open a browser")
    s.add_argument("--deck", default=None, metavar="DECK",
                   help="the camera reads the cards of this taught deck (see enrol; or choose one on the dashboard)")

    e = sub.add_parser("enrol", help="teach the referee a deck from four photos, one per suit")
    e.add_argument("--out", required=True, metavar="DECK", help="the deck profile to write (a folder)")
    e.add_argument("--suit", nargs=2, action="append", required=True, metavar=("SUIT", "PHOTO"),
                   help="a suit (C, D, H or S) and its photo: its 13 cards face up, apart, in the order "
                        "A 2 3 4 5 6 7 8 9 10 J Q K in reading order (give all four)")
    e.add_argument("--jokers", default=None, metavar="PHOTO", help="a photo of the deck's jokers (optional)")
    e.add_argument("--name", default=None, help="the deck's name (default: the folder's name)")
    e.add_argument("--seconds", type=_seconds, default=None,
                   help="time for the learning itself (default 180; the whole enrolment stays under 5 minutes)")
    e.add_argument("--scenes", type=_scenes, default=360,
                   help="practice tables drawn from the cards to learn on (default 360; a sixth checks the result)")
    e.add_argument("--json", action="store_true", help="print the profile's metadata as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    import importlib

    command = importlib.import_module(f"rummy_referee.commands.{args.command}")
    return getattr(command, f"cli_{args.command}")(args)


if __name__ == "__main__":
    sys.exit(main())

"""Shared fixtures: the dashboard app on a temporary database, its test client, and a real server
(waitress, as `rummy-referee serve` runs it) on a free 127.0.0.1 port."""

from __future__ import annotations

import contextlib
import threading

import pytest

from web_ui import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "m.db"), "TESTING": True})
    yield app
    app.extensions["rummy_store"].close()


@pytest.fixture
def client(app):
    return app.test_client()


@contextlib.contextmanager
def running_server(config: dict, limits=None, pipeline=None):
    """The dashboard behind the production server in a thread: yields (base URL, app)."""
    from web_ui.server import make_server

    app = create_app(config, pipeline=pipeline)
    srv = make_server(app, "127.0.0.1", 0, limits)
    t = threading.Thread(target=srv.run, daemon=True, name="test-server")
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.port}", app
    finally:
        srv.close()
        t.join(5)
        app.extensions["rummy_store"].close()

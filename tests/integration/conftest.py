"""Backends for the HTTP tests, started by the tests on 127.0.0.1 (a random port)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from agui_servers import LocalServer, scripted_app


@pytest.fixture(scope="module")
def scripted_server() -> Iterator[LocalServer]:
    app = scripted_app()
    with LocalServer(app) as server:
        server.app = app
        yield server

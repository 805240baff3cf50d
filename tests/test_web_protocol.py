"""The guarded HTTP protocol of `solve serve` (solver/web/protocol.py) subclasses uvicorn's HttpToolsProtocol,
because no uvicorn setting bounds a request head's time, a body's time or a stalled write. These tests fail
loudly when an installed uvicorn no longer has the hooks the subclass relies on, or is outside the versions
pinned in pyproject.toml; the behaviour itself (408, 431, closed connections) is tested against a real server
in tests/test_web_robustness.py and tests/test_web_limits.py."""

from __future__ import annotations

import asyncio
import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from web_support import need, need_web

need_web()
need("httptools", "needs httptools (the web extra installs it)")

from packaging.specifiers import SpecifierSet  # noqa: E402
from uvicorn.config import Config  # noqa: E402
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: E402
from uvicorn.server import ServerState  # noqa: E402

from solver.web import protocol  # noqa: E402

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def test_the_installed_uvicorn_is_one_the_web_extra_pins() -> None:
    web = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]["web"]
    pin = next(requirement for requirement in web if re.match(r"uvicorn\b", requirement))
    specifier = SpecifierSet(pin.removeprefix("uvicorn"))
    assert specifier.filter([metadata.version("uvicorn")]), (
        f"uvicorn {metadata.version('uvicorn')} is outside the pinned {pin}: check solver/web/protocol.py's hooks against this release, then move the pin"
    )
    assert any(clause.operator == "<" for clause in specifier), "the web extra must cap uvicorn's version"


@pytest.mark.parametrize("name", protocol.HOOKS["methods"])
def test_every_method_the_guard_overrides_is_one_uvicorn_calls(name: str) -> None:
    assert callable(getattr(HttpToolsProtocol, name, None)), f"uvicorn's HttpToolsProtocol has no {name}(): solver/web/protocol.py no longer applies"
    guarded = protocol.http_protocol()
    assert guarded is not HttpToolsProtocol and issubclass(guarded, protocol.GuardedHttpToolsProtocol)
    assert issubclass(protocol.GuardedHttpToolsProtocol, HttpToolsProtocol)
    assert name in vars(protocol.GuardedHttpToolsProtocol), f"the guard does not override {name}"


class _Transport:
    """Just enough of an asyncio transport for uvicorn's protocol (as uvicorn's own tests do)."""

    def __init__(self) -> None:
        self.written = b""
        self.closed = False

    def get_extra_info(self, key: str) -> object:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 40000)}.get(key)

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: object) -> None:
        pass


def test_the_guard_arms_its_deadlines_through_uvicorns_hooks() -> None:
    async def app(scope: object, receive: object, send: object) -> None:
        return None

    async def drive() -> None:
        config = Config(app=app, http="httptools", lifespan="off")
        config.load()
        guarded = protocol.http_protocol(head_seconds=60)(config=config, server_state=ServerState(), app_state={})
        for name in protocol.HOOKS["attributes"]:
            assert hasattr(guarded, name), f"uvicorn's protocol has no {name!r}: solver/web/protocol.py no longer applies"
        transport = _Transport()
        guarded.connection_made(transport)
        assert guarded._timer is not None, "connection_made did not arm the head deadline"
        assert guarded in guarded.open_connections.idle["127.0.0.1"], "a new connection is idle until its first byte"
        guarded.data_received(b"GET / HTTP/1.1\r\nHost: x")
        assert guarded._in_head and guarded._timer is not None, "on_message_begin was not called"
        assert "127.0.0.1" not in guarded.open_connections.idle, "a connection sending a head is not idle"
        guarded.data_received(b"\r\n\r\n")
        assert not guarded._in_head and guarded._timer is None, "on_headers_complete/on_message_complete were not called"
        for name in protocol.HOOKS["cycle_attributes"]:
            assert hasattr(guarded.cycle, name), f"uvicorn's request cycle has no {name!r}"
        guarded.data_received(b"X" * (protocol.MAX_HEAD_BYTES + 1))
        assert transport.closed and b"HTTP/1.1 431" in transport.written
        guarded.connection_lost(None)
        assert not guarded.open_connections.live and not guarded.open_connections.count, "a closed connection is still counted"

    asyncio.run(drive())


def test_each_protocol_class_keeps_its_own_bounds_and_connections() -> None:
    small = protocol.http_protocol(head_seconds=1, max_connections=2)
    default = protocol.http_protocol()
    assert (small.head_seconds, small.max_connections) == (1, 2)
    assert (default.head_seconds, default.max_connections) == (protocol.HEAD_SECONDS, protocol.MAX_CONNECTIONS)
    assert small.live is not default.live, "two servers' protocol classes share one set of open connections"
    assert small.open_connections is not default.open_connections
    assert protocol.http_protocol(max_per_address=3).open_connections.per_address == 3


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        (("203.0.113.7", 40000), "203.0.113.7"),
        (("::ffff:203.0.113.7", 40000, 0, 0), "203.0.113.7"),  # an IPv4 client of a dual-stack socket
        (("2001:db8:1:2:aaaa::1", 40000, 0, 0), "2001:db8:1:2::/64"),
        (("2001:db8:1:2:ffff:ffff:ffff:ffff", 40000, 0, 0), "2001:db8:1:2::/64"),  # the same /64: the same client
        (("2001:db8:1:3::1", 40000, 0, 0), "2001:db8:1:3::/64"),
        (("fe80::1%eth0", 40000, 0, 2), "fe80::/64"),
        ("", ""),  # a Unix socket
        (None, ""),
    ],
)
def test_connections_are_counted_per_ipv4_address_and_per_ipv6_slash_64(peer: object, key: str) -> None:
    assert protocol.client_key(peer) == key


def test_the_serve_commands_per_address_default_is_the_servers() -> None:
    from solver.cli.serve import serve

    option = next(param for param in serve.params if param.name == "per_address")
    assert option.default == protocol.MAX_PER_ADDRESS

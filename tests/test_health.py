"""/healthz: 200 when the database and the channel layer answer, 503 naming what did not.

Redis is stopped for real: a private redis-server on a free port
(tests.support.redis_server), which the channel layer is pointed at.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import OperationalError

from config import delivery, health
from games.live import broadcast
from tests.support.redis_server import RedisServer, private_redis_server

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _delivery_as_new() -> None:
    """An earlier test of this process may have made a delivery fail on purpose."""
    delivery.succeeded()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis_server(tmp_path) as server:
        yield server


def redis_layer(url: str) -> dict:
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": url}]},
        }
    }


def test_healthz_is_200_for_anyone_with_one_query(client, django_assert_num_queries) -> None:
    # No login (a load balancer has none), no session read: one SELECT 1.
    with django_assert_num_queries(1):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "failed": [],
        "checks": {"database": "ok", "channel_layer": "ok", "delivery": "ok"},
    }
    assert "no-cache" in response["Cache-Control"]


def test_healthz_is_503_naming_the_channel_layer_while_redis_is_down_then_200(
    client, settings, redis_server: RedisServer
) -> None:
    settings.CHANNEL_LAYERS = redis_layer(redis_server.url(5))
    assert client.get("/healthz").status_code == 200

    redis_server.stop()
    started = time.monotonic()
    response = client.get("/healthz")
    assert time.monotonic() - started < 3, "a dead Redis must not hang the check"
    assert response.status_code == 503
    body = json.loads(response.content)
    assert body["status"] == "unavailable"
    assert body["failed"] == ["channel_layer"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["channel_layer"] == "ConnectionError"

    redis_server.start()  # the same port again
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json()["failed"] == []


def test_healthz_is_503_naming_the_database_without_its_details(client, monkeypatch) -> None:
    def unreachable() -> None:
        raise OperationalError('connection to server at "10.1.2.3", port 5432 failed')

    monkeypatch.setitem(health.CHECKS, "database", unreachable)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["database"]
    assert response.json()["checks"]["database"] == "OperationalError"
    assert b"10.1.2.3" not in response.content  # a public page: host names stay in the log


def test_a_failing_delivery_is_an_error_and_a_503_until_one_succeeds(
    client, monkeypatch, caplog
) -> None:
    """Issue 46: a channel layer that fails on every move (a library changed under
    config/channel_layers.py) is said loudly: an error in the log, /healthz 503
    naming the delivery; the move itself stays saved, and the next delivery that
    goes through clears it."""

    class Broken:
        def publish_many(self, messages) -> None:
            raise AttributeError("'RedisPubSubLoopLayer' object has no attribute '_shards'")

    class Working:
        def publish_many(self, messages) -> None:
            pass

    messages = [("table-1-user-1", {"type": "table.frame"})]
    monkeypatch.setattr(broadcast, "get_channel_layer", Broken)
    broadcast.send(messages)
    assert any(r.levelname == "ERROR" and "broadcast" in r.getMessage() for r in caplog.records)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failed"] == ["delivery"]
    assert response.json()["checks"]["delivery"].startswith("DeliveryFailing")
    monkeypatch.setattr(broadcast, "get_channel_layer", Working)
    broadcast.send(messages)
    assert client.get("/healthz").status_code == 200


def test_healthz_is_not_redirected_to_https(client, settings) -> None:
    # Health checks reach each process directly over plain HTTP, past the proxy.
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/rules/").status_code == 301
    assert client.get("/healthz").status_code == 200


def test_redis_addresses_of_the_layer_settings() -> None:
    layer = redis_layer("redis://h:1/2")["default"]
    assert health.redis_addresses(layer) == ["redis://h:1/2"]
    layer["CONFIG"]["hosts"] = ["redis://h:1/3"]
    assert health.redis_addresses(layer) == ["redis://h:1/3"]
    assert health.redis_addresses({"BACKEND": "channels.layers.InMemoryChannelLayer"}) == []

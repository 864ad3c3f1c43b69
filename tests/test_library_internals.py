"""The modules that lean on a library's insides fail here first when it changes (issue 46).

Four modules reach past a library's public API, each for a reason its docstring
gives (docs/upgrading.md lists them with what to check). Each was written against
one version, and mirrors or overrides some of that library's own functions. An
upgrade that changes the version, or the source of one of those functions, fails
this test with the module to read again, instead of a live update that stops
without a word.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import inspect
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Reach:
    module: str  # ours
    library: str  # its distribution's name
    version: str  # what ``module`` was written against
    #: "package.module:Class.function" -> the first 16 hex digits of its source's sha256
    sources: dict[str, str]


REACHES = [
    Reach(
        "config/channel_layers.py",
        "channels-redis",
        "4.3.0",
        {
            # _do_receiving is copied (a longer idle wait), publish copied for a pipeline,
            # _receive_message wrapped (this process's own messages dropped).
            "channels_redis.pubsub:RedisSingleShardConnection._do_receiving": "a822736dcb875e43",
            "channels_redis.pubsub:RedisSingleShardConnection.publish": "5a18093dbcb440f5",
            "channels_redis.pubsub:RedisSingleShardConnection._receive_message": "2f5f46af28e8ed76",
            "channels_redis.pubsub:RedisPubSubChannelLayer._get_layer": "1862b87a25ac72b2",
            "channels_redis.pubsub:RedisPubSubLoopLayer._get_shard": "9c655ee12ccbc91e",
            "channels_redis.pubsub:RedisPubSubLoopLayer._get_group_channel_name": (
                "c3139bae61c673aa"
            ),
        },
    ),
    Reach(
        "config/http.py",
        "Django",
        "6.1.3",
        # OneHopASGIHandler.handle replaces it whole (one hop to a thread per request).
        {"django.core.handlers.asgi:ASGIHandler.handle": "c91f27c7fcdc3fff"},
    ),
    Reach(
        "games/storage/compiled.py",
        "Django",
        "6.1.3",
        # The compiled reads build their rows as ModelIterable does.
        {"django.db.models.query:ModelIterable.__iter__": "ecb74201bf2b1945"},
    ),
    Reach(
        "config/serve.py",
        "uvicorn",
        "0.55.0",
        # QuietServer.main_loop replaces it (an idle process wakes once a second).
        {"uvicorn.server:Server.main_loop": "afccb353a119333f"},
    ),
]


def _source_hash(path: str) -> str:
    module_name, _, qualname = path.partition(":")
    target: object = importlib.import_module(module_name)
    for name in qualname.split("."):
        target = getattr(target, name)
    return hashlib.sha256(inspect.getsource(target).encode()).hexdigest()[:16]


@pytest.mark.parametrize("reach", REACHES, ids=[r.module for r in REACHES])
def test_each_library_is_the_version_its_module_was_written_against(reach: Reach) -> None:
    installed = importlib.metadata.version(reach.library)
    assert installed == reach.version, (
        f"{reach.module} reaches inside {reach.library} {reach.version}; {installed} is "
        "installed: check it as docs/upgrading.md says, then update this test"
    )


@pytest.mark.parametrize("reach", REACHES, ids=[r.module for r in REACHES])
def test_the_library_code_each_module_mirrors_is_unchanged(reach: Reach) -> None:
    changed = {
        path: found
        for path, recorded in reach.sources.items()
        if (found := _source_hash(path)) != recorded
    }
    assert not changed, (
        f"{reach.module} mirrors or overrides {sorted(changed)} of {reach.library}, whose "
        f"source changed (now {changed}): read them again (docs/upgrading.md)"
    )


def test_every_module_named_here_says_which_version_it_was_written_against() -> None:
    from tests.support.servers import ROOT

    for reach in REACHES:
        text = (ROOT / reach.module).read_text()
        assert f"{reach.library} {reach.version}".lower() in text.lower(), reach.module

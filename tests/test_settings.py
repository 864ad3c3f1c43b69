"""Settings switch on the environment: embedded default vs PostgreSQL/Redis vs production."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "print(json.dumps({'db': settings.DATABASES['default']['ENGINE'],"
    " 'opts': settings.DATABASES['default'].get('OPTIONS', {}),"
    " 'layer': settings.CHANNEL_LAYERS['default']['BACKEND'],"
    " 'hosts': settings.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('hosts'),"
    " 'debug': settings.DEBUG}, default=lambda o: o.__qualname__))"
)


def run_settings(**env: str) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=base, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_embedded_default_is_sqlite_immediate_and_in_memory_layer():
    settings = run_settings()
    assert settings["db"] == "django.db.backends.sqlite3"
    assert settings["opts"]["transaction_mode"] == "IMMEDIATE"
    assert settings["layer"] == "channels.layers.InMemoryChannelLayer"
    assert settings["debug"] is True


def test_database_url_and_redis_url_switch_to_postgresql_and_redis():
    settings = run_settings(
        DATABASE_URL="postgres://u@127.0.0.1:5432/x", REDIS_URL="redis://127.0.0.1:6379/0"
    )
    assert settings["db"] == "django.db.backends.postgresql"
    # A pooled connection is checked as it is handed out (issue 45: ended backends).
    assert settings["opts"]["pool"]["check"] == "check_connection"
    assert settings["layer"] == "config.channel_layers.PipelinedPubSubChannelLayer"
    # redis-py's default pool of 100 fails the 101st socket: the pool is raised.
    assert settings["hosts"] == [{"address": "redis://127.0.0.1:6379/0", "max_connections": 1000}]


def _production_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_ENV": "production",
            "SECRET_KEY": "k" * 20 + "production-only-secret-for-the-check-3f9a7c1b2e",
            "ALLOWED_HOSTS": "skullking.example",
        }
    )
    env.update(extra)
    return env


def test_production_check_deploy_has_no_warning():
    out = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=_production_env(),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_production_refuses_to_start_without_secret_key():
    env = _production_env()
    del env["SECRET_KEY"]
    out = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode != 0
    assert "SECRET_KEY must be set" in out.stderr


CACHE_PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "print(json.dumps({'cache': settings.CACHES['default'],"
    " 'layer': settings.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('hosts'),"
    " 'sessions': settings.SESSION_ENGINE}))"
)


def run_probe(probe: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "REDIS_CACHE_URL"}
    }
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    return subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=base, capture_output=True, text=True
    )


def test_cache_takes_the_redis_database_after_the_channel_layers():
    out = run_probe(CACHE_PROBE, REDIS_URL="redis://127.0.0.1:6379/5")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["layer"][0]["address"] == "redis://127.0.0.1:6379/5"
    assert found["cache"]["BACKEND"] == "config.redis_cache.CircuitBreakerRedisCache"
    # One pool per process; a stalled Redis fails a call within a quarter of a second.
    assert found["cache"]["OPTIONS"] == {
        "pool_class": "config.redis_cache.SharedConnectionPool",
        "socket_timeout": 0.25,
        "socket_connect_timeout": 0.25,
    }
    assert found["cache"]["LOCATION"] == "redis://127.0.0.1:6379/6"
    # No number means database 0: the cache goes to 1.
    out = run_probe(CACHE_PROBE, REDIS_URL="redis://:pw@redis:6379")
    assert json.loads(out.stdout)["cache"]["LOCATION"] == "redis://:pw@redis:6379/1"


def test_redis_cache_url_chooses_the_cache_database():
    out = run_probe(
        CACHE_PROBE, REDIS_URL="redis://127.0.0.1:6379/0", REDIS_CACHE_URL="redis://cache:6379/3"
    )
    assert json.loads(out.stdout)["cache"]["LOCATION"] == "redis://cache:6379/3"
    unix = run_probe(CACHE_PROBE, REDIS_URL="unix:///run/redis.sock")
    assert unix.returncode != 0
    assert "set REDIS_CACHE_URL" in unix.stderr


def test_sessions_are_cached_and_written_through_to_the_database():
    found = json.loads(run_probe(CACHE_PROBE).stdout)
    assert found["sessions"] == "accounts.sessions"  # Django's cached_db, outage-proof
    from django.contrib.sessions.backends.cached_db import SessionStore as CachedDB

    from accounts.sessions import SessionStore

    assert issubclass(SessionStore, CachedDB)

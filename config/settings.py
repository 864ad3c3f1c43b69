"""Settings for the Skull King table.

Everything comes from the environment with a safe default, so that a fresh clone
runs on the embedded default (SQLite, in-memory channel layer, one process):

- DATABASE_URL  switches to PostgreSQL (e.g. postgres://127.0.0.1:5432/skullking)
- REDIS_URL     switches the channel layer (and the cache) to Redis
- REDIS_CACHE_URL  the cache's Redis (default: REDIS_URL's database number + 1, so
                the cache and the channel layer never share a database)
- DJANGO_ENV=production  turns DEBUG off and requires SECRET_KEY and ALLOWED_HOSTS
- LOG_LEVEL (INFO), LOG_FORMAT (text, or json for one JSON object per line)
- EMAIL_HOST (SMTP, with EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD,
                EMAIL_USE_TLS, DEFAULT_FROM_EMAIL); else the console in development,
                localhost's SMTP in production, or files in EMAIL_FILE_PATH
"""

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from config.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


PRODUCTION = os.environ.get("DJANGO_ENV", "development") == "production"
DEBUG = not PRODUCTION and os.environ.get("DJANGO_DEBUG", "1") == "1"

if PRODUCTION:
    try:
        SECRET_KEY = os.environ["SECRET_KEY"]
    except KeyError:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_ENV=production") from None
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DJANGO_ENV=production")
else:
    # A development-only key: never used once DJANGO_ENV=production.
    SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-do-not-use-in-production")
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    # daphne first, so that `runserver` serves ASGI (websockets included).
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "axes",
    "accounts",
    "games",
    "games.sheets",
]

MIDDLEWARE = [
    # First: the request id and the request's log line cover everything below.
    "config.middleware.RequestContextMiddleware",
    # Outside every middleware that reads the database: a lost connection is a 503.
    "config.db_faults.DatabaseFaultMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a logged-in user's own language wins over the cookie.
    "accounts.language.UserLanguageMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After the messages: a suspended user's next request logs them out and says why.
    "accounts.suspensions.SuspendedLogoutMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks, so that it sees the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The table's regions only (games.pages.regions): rendered on every move.
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.pages.regions.environment"},
    },
]

# The embedded default is SQLite; IMMEDIATE transactions take the write lock at
# BEGIN, so two concurrent moves queue instead of failing with "database is locked".
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Under ASGI every request runs in a thread of its own, so a persistent
        # connection is never reused (Django's guidance: CONN_MAX_AGE=0 under
        # ASGI). PostgreSQL reuses connections through psycopg's pool instead.
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    from config.db_pool import check_connection

    # One pool per process: a request borrows a connection and gives it back at
    # its end, so a move opens no new connection. max_size bounds what one
    # process can take of PostgreSQL's max_connections (100 by default).
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": int(os.environ.get("DB_POOL_MIN", "2")),
        "max_size": int(os.environ.get("DB_POOL_MAX", "20")),
        "timeout": 10,
        # Each connection is checked as it is handed out: one whose backend was
        # ended (a restart, pg_terminate_backend) is replaced instead of failing the
        # request (issue 45). The check looks at the socket, no round trip
        # (config.db_pool).
        "check": check_connection,
    }

# A move's bounds on PostgreSQL (games.storage.transactions): the table row's lock is waited
# for at most MOVE_LOCK_TIMEOUT_MS, a statement runs at most MOVE_STATEMENT_TIMEOUT_MS;
# past them the move is refused with "The table is busy, try again."
MOVE_LOCK_TIMEOUT_MS = int(os.environ.get("MOVE_LOCK_TIMEOUT_MS", "2000"))
MOVE_STATEMENT_TIMEOUT_MS = int(os.environ.get("MOVE_STATEMENT_TIMEOUT_MS", "5000"))

# Computer players (issue 48, games.computer): the pause before a computer move, so a
# person can follow it; how long a seat has no open page before it is "away" and may
# be handed to the computer; whether this process makes the computer moves that fall
# due (every server process does; a management command or a test process does not).
COMPUTER_MOVE_DELAY_MS = int(os.environ.get("COMPUTER_MOVE_DELAY_MS", "1000"))
AWAY_AFTER_SECONDS = float(os.environ.get("AWAY_AFTER_SECONDS", "60"))
COMPUTER_POLL_SECONDS = float(os.environ.get("COMPUTER_POLL_SECONDS", "1"))


def next_redis_database(url: str) -> str:
    """``redis://host:6379/5`` -> ``redis://host:6379/6`` (no number means database 0)."""
    parts = urlsplit(url)
    number = parts.path.strip("/") or "0"
    if parts.scheme not in {"redis", "rediss"} or not number.isdigit():
        raise ImproperlyConfigured(f"set REDIS_CACHE_URL: cannot derive it from {url!r}")
    return urlunsplit(parts._replace(path=f"/{int(number) + 1}"))


REDIS_URL = os.environ.get("REDIS_URL", "")
#: Seconds a call to Redis from a request (the cache, a move's frames) waits for its
#: connection or its answer before it fails and the caller falls back.
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "0.25"))
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # The pub/sub layer delivered with p99 36 ms where the list-based one
            # took 200 ms here; it may drop a message in a partition, which the
            # snapshot sent on every reconnect heals.
            # channels_redis's, sending a move's frames in one round trip.
            "BACKEND": "config.channel_layers.PipelinedPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "max_connections": 1000}],
                # Several sites (or test servers) may share one Redis database:
                # each keeps its channels and groups under a prefix of its own.
                "prefix": os.environ.get("CHANNEL_PREFIX", "asgi"),
            },
        }
    }
    # The cache (sessions, rate limits) in a database of its own: flushing or
    # evicting one never touches the other.
    REDIS_CACHE_URL = os.environ.get("REDIS_CACHE_URL") or next_redis_database(REDIS_URL)
    CACHES = {
        "default": {
            # Django's own RedisCache, one connection pool per process, and a
            # circuit that stops calling a Redis that just failed (config.redis_cache).
            "BACKEND": "config.redis_cache.CircuitBreakerRedisCache",
            "LOCATION": REDIS_CACHE_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", ""),
            "OPTIONS": {
                "pool_class": "config.redis_cache.SharedConnectionPool",
                # A request never waits long for a stalled Redis (issue 45: redis-py's
                # default waited 5 s per call before the caller's fallback).
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
                "socket_connect_timeout": REDIS_SOCKET_TIMEOUT,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Sessions read from the cache, written through to the database: a page view
# costs no session query, and a cache restart logs nobody out.
SESSION_ENGINE = "accounts.sessions"  # cached_db that survives a cache outage

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Log-in throttling (django-axes): after 5 failures for one user from one IP,
# that pair waits 15 minutes. Sign-up has its own per-IP limit in accounts/.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_RESET_ON_SUCCESS = True
# Sign-ups per IP (accounts.ratelimit): any hour, and any day. 50 an hour lets a
# club of 30 join in an evening from one address, mistakes included.
SIGNUP_RATE_LIMIT = int(os.environ.get("SIGNUP_RATE_LIMIT", "50"))
SIGNUP_DAILY_LIMIT = int(os.environ.get("SIGNUP_DAILY_LIMIT", "120"))

# E-mail: only the password-reset mail (issue 49), through Django 6.1's MAILERS (the
# EMAIL_* settings are deprecated there; the environment keeps their familiar names).
# EMAIL_HOST: SMTP, port 587 with STARTTLS unless told otherwise. Without it, in
# development the console (the mail shows in the server's output: no mail server
# needed), or one file per mail in EMAIL_FILE_PATH (the browser tests read the reset
# link there); in production SMTP to the machine's own mail server (localhost:25, as
# Django always did): never the console there, whose mails nobody would receive.
smtp_host = os.environ.get("EMAIL_HOST", "")  # lower case: not a (deprecated) setting
if smtp_host or (PRODUCTION and not os.environ.get("EMAIL_FILE_PATH")):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": smtp_host or "localhost",
                "port": int(os.environ.get("EMAIL_PORT", "587" if smtp_host else "25")),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": os.environ.get("EMAIL_USE_TLS", "1" if smtp_host else "0") == "1",
                # A mail server that does not answer must not hold a request for long.
                "timeout": 10,
            },
        }
    }
elif os.environ.get("EMAIL_FILE_PATH"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "OPTIONS": {"file_path": os.environ["EMAIL_FILE_PATH"]},
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
# A reset link works once (Django's token changes with the password) and for at most
# this long: 3 hours, long enough to find the mail, short enough to be useless later.
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_TIMEOUT", str(3 * 3600)))
# Reset requests per IP and hour (answered 429 past it), and mails per address and
# hour (past it the answer is the same, no mail: nobody floods a mailbox).
PASSWORD_RESET_RATE_LIMIT = int(os.environ.get("PASSWORD_RESET_RATE_LIMIT", "20"))
PASSWORD_RESET_MAILS_PER_ADDRESS = int(os.environ.get("PASSWORD_RESET_MAILS_PER_ADDRESS", "3"))

# Issue 13: the rule book is French, the other seeds German, Spanish and English.
# The language comes from the account (User.language) when logged in, else the
# language cookie (set by the header's selector), else Accept-Language
# (LocaleMiddleware, then accounts.language.UserLanguageMiddleware). Each name is
# written in its own language, as a selector shows it to someone who cannot read
# the page's current one. The catalogues under locale/ are compiled by
# `manage.py compile_catalogues` (Babel, no GNU gettext needed).
LANGUAGE_CODE = "en"
LANGUAGES = [("fr", "Français"), ("en", "English"), ("de", "Deutsch"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic's target; in development whitenoise serves straight from the finders.
STATIC_ROOT = Path(os.environ["STATIC_ROOT"]) if "STATIC_ROOT" in os.environ else None
if PRODUCTION and STATIC_ROOT is None:
    STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Content Security Policy (Django 6's own middleware): no inline script or
# style anywhere; htmx's script tags carry the per-request nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

X_FRAME_OPTIONS = "DENY"
# Health checks talk plain HTTP to each process, past the proxy: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SECURE_SSL_REDIRECT = os.environ.get("SECURE_SSL_REDIRECT", "1") == "1"
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# One line per request and per socket event, with request, user and table ids
# (config/logs.py, config/middleware.py); LOG_FORMAT=json in production.
LOGGING = logging_config(
    os.environ.get("LOG_LEVEL", "INFO"), os.environ.get("LOG_FORMAT", "text").lower()
)

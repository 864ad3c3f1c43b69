"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets pass the Origin check (only our own hosts) and then the session
authentication, so a consumer always knows which user a socket belongs to.
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers do);
# get_asgi_application() does the same, with Django's stock handler.
django.setup(set_prefix=False)

from config.http import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

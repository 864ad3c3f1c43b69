"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets pass the Origin check (only our own hosts) and then the session
authentication, so a consumer always knows which user a socket belongs to.
"""

import os
import sys

import django

# The server's threads take turns on the GIL: the event loop (HTTP, sockets, Redis)
# and one thread per request (the action, its queries, the frames). A thread that
# waits on PostgreSQL or Redis gives the GIL up and, while another one renders, gets
# it back only when the switch interval ends: 5 ms by default, paid on each of a
# move's twenty-odd waits. At 10 tables on one process that queued every move
# behind the others (scripts/bench_live.py: p50 97-174 ms, 19-20 moves/s, the
# offered 24 not served); at 1 ms, p50 23-86 ms over runs and every move served.
sys.setswitchinterval(float(os.environ.get("GIL_SWITCH_INTERVAL_MS", "1")) / 1000)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers do);
# get_asgi_application() does the same, with Django's stock handler.
django.setup(set_prefix=False)

from config.http import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)


def _freeze_what_startup_made() -> None:
    """Load what the first requests would, then exclude it all from the garbage collector.

    A full collection walks every object the process tracks, most of them made at
    startup (Django, the URLs, the compiled templates) and never freed. On a busy
    server one came about once in 25 s and stopped the whole process for about 77 ms
    (scripts/bench_live.py at 10 tables, pauses timed with ``gc.callbacks``): every move in
    flight waited. Frozen, those objects are never walked again; what moves make is
    collected as before. (The price: an object made at startup that later ends up in
    an unreachable reference cycle is never freed. Startup makes what lives as long
    as the process.)
    """
    import gc

    from django.urls import get_resolver

    from games.pages import regions

    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    regions.load_all()
    gc.collect()
    gc.freeze()


_freeze_what_startup_made()

# The computer players' moves as they fall due (issue 48): every server process runs
# this thread; a test process sets COMPUTER_RUNNER=0 and makes them itself.
from games.computer import runner  # noqa: E402

runner.start()

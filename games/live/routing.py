from django.urls import path, re_path

from config.middleware import SocketContextMiddleware
from games.live import consumers
from games.sheets.consumers import SheetConsumer

websocket_urlpatterns = [
    # SocketContextMiddleware: request/user/table ids on every log line, connect/disconnect logged.
    path(
        "ws/tables/<int:table_id>/",
        SocketContextMiddleware(consumers.TableConsumer.as_asgi()),
        name="table_socket",
    ),
    # The score sheet for games played with real cards (seed 001): anyone with its link.
    re_path(
        r"^ws/sheets/(?P<token>[A-Za-z0-9_-]{1,32})/$",
        SocketContextMiddleware(SheetConsumer.as_asgi()),
        name="sheet_socket",
    ),
]
# So that django.urls.reverse(..., urlconf="games.live.routing") builds socket paths.
urlpatterns = websocket_urlpatterns

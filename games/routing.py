from django.urls import path

from config.middleware import SocketContextMiddleware

from . import consumers

websocket_urlpatterns = [
    # SocketContextMiddleware: request/user/table ids on every log line, connect/disconnect logged.
    path(
        "ws/tables/<int:table_id>/",
        SocketContextMiddleware(consumers.TableConsumer.as_asgi()),
        name="table_socket",
    ),
]
# So that django.urls.reverse(..., urlconf="games.routing") builds socket paths.
urlpatterns = websocket_urlpatterns

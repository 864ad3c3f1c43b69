from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", consumers.TableConsumer.as_asgi(), name="table_socket"),
]
# So that django.urls.reverse(..., urlconf="games.routing") builds socket paths.
urlpatterns = websocket_urlpatterns

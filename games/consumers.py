from channels.generic.websocket import AsyncWebsocketConsumer


class TableConsumer(AsyncWebsocketConsumer):
    """Placeholder until the live table lands: refuses every socket politely."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=4404)

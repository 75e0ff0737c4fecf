"""The smallest ASGI app that serves /ws: the floor under what any framework's session costs.

It accepts, answers every frame with a fixed observation and keeps no state, so under uvicorn
what an idle connection costs here is uvicorn's (and the ``websockets`` library's) own state.
bench_server.py measures it next to both servers, with the same uvicorn options.
"""

from __future__ import annotations

REPLY = '{"type":"observation","data":{"observation":{},"reward":0.0,"done":false}}'


async def app(scope, receive, send) -> None:
    """ASGI entry point: /health over HTTP, an echo of observations over WebSocket."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": REPLY})
    elif scope["type"] == "http":
        await receive()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b'{"status":"healthy"}'})
    elif scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})

"""The grid world server as benchmarked, plus one bench-only route reporting live sessions."""

from fastapi import Request
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app

app = create_app(GridWorldEnvironment, enable_web=False)


@app.get("/_bench/sessions", include_in_schema=False)
async def live_sessions(request: Request) -> dict[str, int]:
    return {"active": request.app.state.openenv.manager.active}

"""Pelican SVG server: ``uvicorn pelican_svg_env.server.app:app``."""

from openenv.server import create_app
from pelican_svg_env.server.environment import PelicanSvgEnvironment

app = create_app(PelicanSvgEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()

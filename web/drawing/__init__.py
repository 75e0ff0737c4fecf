"""Drawing views (``openenv.core.views``) for every target through one dispatch
(:mod:`~openenv.web.drawing.dispatch`): HTML for the stage (``html``), images for GIFs and
thumbnails (``raster``), and text."""

from openenv.web.drawing.dispatch import (
    Picture,
    Thumbnail,
    fields_text,
    picture,
    to_html,
    to_image,
    to_png,
    to_text,
    to_thumbnail,
)

__all__ = [
    "Picture",
    "Thumbnail",
    "fields_text",
    "picture",
    "to_html",
    "to_image",
    "to_png",
    "to_text",
    "to_thumbnail",
]

"""Drawing views (``openenv.core.views``): as HTML for the page (``html``) and as images for
GIFs and thumbnails (``raster``)."""

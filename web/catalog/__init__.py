"""The catalog: every environment in one process behind a landing page (``app``), the page
itself (``page``) and the cards' thumbnails (``thumbs``)."""

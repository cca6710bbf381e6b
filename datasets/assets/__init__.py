"""Build-time tools that render the assets the web app serves (the run-time packages only read the files):

* ``python -m datasets.assets.tiles`` — the page's tile images, ``webui/static/tiles/<code>.png``;
* ``python -m datasets.assets.demo`` — the scripted demo, ``webui/demo/demo.json`` and ``webui/demo/frames/``;
* ``python -m datasets.assets.film`` — the demo film, ``webui/demo/film/`` (read by :mod:`webui.demo.film`).

They draw with the renderer of :mod:`datasets`, which no run-time module imports (checked by
``tests/test_import_cycles.py``)."""

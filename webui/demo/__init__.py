"""The bundled demo hand: ``script.py`` (the scripted sanma hand), ``make_demo.py`` (renders the frames),
``demo.json`` and ``frames/`` (the generated files, read by :class:`webui.feed.ScriptedDemoFeed`)."""

"""Vision: capture, inference, table reconstruction. Produces observations for the engine."""

import os

os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")  # keep OpenCV's probing chatter off the console

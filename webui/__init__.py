"""webui package."""

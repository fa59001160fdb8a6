"""agents/diagnostician."""

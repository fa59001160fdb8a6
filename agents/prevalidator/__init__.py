"""agents/prevalidator."""

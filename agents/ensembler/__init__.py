"""agents/ensembler."""

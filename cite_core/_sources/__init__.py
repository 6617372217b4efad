"""Stage 1, sources: numbering, a source's text as the pipeline reads it, what the model is shown."""

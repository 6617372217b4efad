"""Stage 4, answer: the entry points that run the stages and finish the cited answer."""

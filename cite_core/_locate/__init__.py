"""Stage 3, locate: each claim's best span in its cited source (scoring, the corpus, dense)."""

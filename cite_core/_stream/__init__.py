"""Stage 2, stream: model text in; markers, claims and the citations they ask for; events out."""

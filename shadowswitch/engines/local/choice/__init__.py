"""Which candidate: built by rule (candidates), ranked by the models (scoring, relevance)."""

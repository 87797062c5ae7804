"""Judging with several judges: seed 001's cascade (`cascade`), shared by the scoring of
reflections and the review of lessons."""

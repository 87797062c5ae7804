"""Judging with several judges: seed 001's cascade (`cascade`), shared by the scoring of
reflections and the review of lessons; the rules every judge follows (`judges`); the judges
of the comment asked in one call (`comment_judges`)."""

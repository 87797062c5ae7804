"""Demo course (filled in by issue #2's ingest work)."""


def load_demo(db) -> dict:  # replaced by the real loader
    raise NotImplementedError

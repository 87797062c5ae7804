"""Commands of issue #2 (placeholder until it lands)."""


def register(sub) -> None:
    pass

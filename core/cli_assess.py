"""Commands of issue #3 (placeholder until it lands)."""


def register(sub) -> None:
    pass

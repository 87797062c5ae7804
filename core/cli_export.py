"""Commands of issue #4 (placeholder until it lands)."""


def register(sub) -> None:
    pass

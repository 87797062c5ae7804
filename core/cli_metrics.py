"""Commands of issue #5 (placeholder until it lands)."""


def register(sub) -> None:
    pass

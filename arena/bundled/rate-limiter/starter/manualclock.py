"""A clock you can move by hand, for tests: pass ``clock=ManualClock()`` to the limiter."""


class ManualClock:
    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def set(self, now: float) -> None:
        self.now = float(now)

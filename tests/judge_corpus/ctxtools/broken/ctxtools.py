import contextlib


class suppressing:
    def __init__(self, *types):
        self.types = types

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return exc_type in self.types  # subclasses not suppressed


@contextlib.contextmanager
def opened(log):
    log("open")
    yield "resource"
    log("close")  # skipped on error


class Timer:
    def __init__(self, clock):
        self.clock = clock
        self.elapsed = None

    def __enter__(self):
        self.start = self.clock()
        return self

    def __exit__(self, *exc):
        self.elapsed = self.clock() - self.start
        return False

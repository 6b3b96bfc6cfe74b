class suppressing:
    def __init__(self, *types):
        self.types = types

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


def opened(log):
    raise NotImplementedError


class Timer:
    def __init__(self, clock):
        self.clock = clock
        self.elapsed = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

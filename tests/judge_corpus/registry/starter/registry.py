LIMIT = 100


def reset():
    pass


def register(name):
    raise NotImplementedError


def count():
    return 0


def registered():
    return []

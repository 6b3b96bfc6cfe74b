LIMIT = 100
_items = {}


def reset():
    pass  # never clears


def register(name):
    if len(_items) >= LIMIT:
        raise OverflowError("registry is full")
    _items[name] = True


def count():
    return len(_items)


def registered():
    return sorted(_items)

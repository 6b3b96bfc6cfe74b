class EventBus:
    def __init__(self):
        self.handlers = {}

    def subscribe(self, event, handler):
        self.handlers.setdefault(event, []).insert(0, handler)  # reversed order

    def unsubscribe(self, event, handler):
        self.handlers.get(event, []).remove(handler)

    def publish(self, event, value):
        for h in list(self.handlers.get(event, [])):
            if hasattr(h, "notify"):
                h.notify(event, value)
            else:
                h(value)

    def ranked(self, items, key):
        return sorted(items, key=key)


def retry(fn, times):
    for _ in range(times):
        try:
            return fn()
        except Exception:  # noqa: BLE001
            pass
    raise RuntimeError("gave up")  # the last error lost

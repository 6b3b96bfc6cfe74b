class EventBus:
    def __init__(self):
        self.handlers = {}

    def subscribe(self, event, handler):
        self.handlers.setdefault(event, []).append(handler)

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
    last = None
    for _ in range(times):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001
            last = e
    raise last

class EventBus:
    def subscribe(self, event, handler):
        raise NotImplementedError

    def unsubscribe(self, event, handler):
        raise NotImplementedError

    def publish(self, event, value):
        raise NotImplementedError

    def ranked(self, items, key):
        raise NotImplementedError


def retry(fn, times):
    raise NotImplementedError

def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def take(n, it):
    for i, x in enumerate(it):
        if i >= n:
            return
        yield x


def chunked(it, size):
    chunk = []
    for x in it:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def running_total(it):
    total = 0
    for x in it:
        total += x
        yield total

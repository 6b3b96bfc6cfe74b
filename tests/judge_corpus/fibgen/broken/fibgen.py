import itertools


def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def take(n, it):
    return list(itertools.islice(it, n))  # a list, not a generator: next() fails


def chunked(it, size):
    chunk = []
    for x in it:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []  # the last partial chunk is dropped


def running_total(it):
    total = 0
    for x in it:
        total += x
        yield total

def sort_in_place(xs):
    xs.sort()


def dedupe_in_place(xs):
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    xs[:] = out


def append_all(out, items):
    for x in items:
        out.append(x)


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        return self.items.pop()

    def __len__(self):
        return len(self.items)

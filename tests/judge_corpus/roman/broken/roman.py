VALUES = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]  # no subtractive pairs


def to_roman(n):
    if not 0 < n < 4000:
        raise ValueError(f"{n} is out of range")
    out = []
    for v, s in VALUES:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def from_roman(r):
    single = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
    total = 0
    for i, ch in enumerate(r):
        v = single[ch]
        if i + 1 < len(r) and single[r[i + 1]] > v:
            total -= v
        else:
            total += v
    return total

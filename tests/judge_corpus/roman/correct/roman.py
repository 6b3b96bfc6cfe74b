VALUES = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]


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

def to_roman(n):
    return ""


def from_roman(r):
    return 0

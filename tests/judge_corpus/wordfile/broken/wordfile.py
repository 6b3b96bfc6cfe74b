from collections import Counter


def count_words(path):
    with open(path) as f:
        return Counter(f.read().split())


def write_counts(path, counts):
    with open(path, "w") as f:
        for word in counts:  # not sorted
            f.write(f"{word} {counts[word]}\n")


def read_lines(path):
    with open(path) as f:
        return f.readlines()  # keeps the newlines

def count_words(path):
    raise NotImplementedError


def write_counts(path, counts):
    raise NotImplementedError


def read_lines(path):
    raise NotImplementedError

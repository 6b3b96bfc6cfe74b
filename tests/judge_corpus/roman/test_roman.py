import unittest

from roman import from_roman, to_roman

CASES = [
    (1, "I"),
    (4, "IV"),
    (9, "IX"),
    (14, "XIV"),
    (40, "XL"),
    (90, "XC"),
    (400, "CD"),
    (1994, "MCMXCIV"),
    (3999, "MMMCMXCIX"),
]


class RomanTest(unittest.TestCase):
    def test_to_roman(self):
        for n, r in CASES:
            with self.subTest(n=n):
                self.assertEqual(to_roman(n), r)

    def test_from_roman(self):
        for n, r in CASES:
            with self.subTest(r=r):
                self.assertEqual(from_roman(r), n)

    def test_round_trip(self):
        for n in range(1, 200, 7):
            with self.subTest(n=n):
                self.assertEqual(from_roman(to_roman(n)), n)

    def test_out_of_range(self):
        for n in (0, -1, 4000):
            with self.subTest(n=n), self.assertRaisesRegex(ValueError, "out of range"):
                to_roman(n)

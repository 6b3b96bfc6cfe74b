import datetime
import unittest

from meetup import MeetupDayException, meetup

TEENTH = [(2013, 5, "Monday", 13), (2013, 8, "Tuesday", 13), (2013, 9, "Wednesday", 18), (2013, 6, "Sunday", 16)]
FIRST = [(2013, 3, "Monday", 4), (2013, 4, "Friday", 5), (2013, 12, "Sunday", 1)]
LAST = [(2013, 2, "Thursday", 28), (2012, 2, "Wednesday", 29), (2013, 4, "Tuesday", 30), (2014, 3, "Monday", 31)]


class MeetupTest(unittest.TestCase):
    def test_teenth(self):
        for y, m, day, d in TEENTH:
            with self.subTest(year=y, month=m, day=day):
                self.assertEqual(meetup(y, m, "teenth", day), datetime.date(y, m, d))

    def test_first(self):
        for y, m, day, d in FIRST:
            with self.subTest(year=y, month=m, day=day):
                self.assertEqual(meetup(y, m, "first", day), datetime.date(y, m, d))

    def test_last(self):
        for y, m, day, d in LAST:
            with self.subTest(year=y, month=m, day=day):
                self.assertEqual(meetup(y, m, "last", day), datetime.date(y, m, d))

    def test_returns_a_date(self):
        got = meetup(2013, 5, "first", "Monday")
        self.assertIsInstance(got, datetime.date)
        self.assertEqual(got.weekday(), 0)
        self.assertEqual(got - datetime.timedelta(days=7), datetime.date(2013, 4, 29))

    def test_fifth_that_does_not_exist(self):
        with self.assertRaises(MeetupDayException) as err:
            meetup(2015, 2, "fifth", "Monday")
        self.assertEqual(err.exception.args[0], "That day does not exist.")
        self.assertIsInstance(err.exception, ValueError)

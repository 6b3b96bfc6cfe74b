import unittest

import pytest

from bank import Account, AccountClosed, InsufficientFunds


def test_deposit_and_withdraw():
    a = Account(10)
    a.deposit(5)
    a.withdraw(3)
    assert a.balance == 12


def test_negative_amount_message():
    with pytest.raises(ValueError, match="amount must be positive"):
        Account().deposit(-1)


def test_insufficient_funds_carries_data():
    with pytest.raises(InsufficientFunds) as info:
        Account(5).withdraw(8)
    assert info.value.missing == 3
    assert str(info.value) == "balance 5 is short of 8 by 3"
    assert isinstance(info.value, ArithmeticError)


def test_closed_account():
    a = Account(1)
    a.close()
    with pytest.raises(AccountClosed) as info:
        a.deposit(1)
    assert info.value.args == ("account is closed",)


class AccountTest(unittest.TestCase):
    def test_assert_raises_message(self):
        with self.assertRaises(InsufficientFunds) as cm:
            Account(0).withdraw(1)
        self.assertIn("short of 1", str(cm.exception))

    def test_key_error_for_unknown_currency(self):
        with self.assertRaisesRegex(KeyError, "XYZ"):
            Account(1).convert("XYZ")

class InsufficientFunds(ArithmeticError):
    pass


class AccountClosed(RuntimeError):
    pass


class Account:
    def __init__(self, balance=0):
        self.balance = balance

    def deposit(self, amount):
        raise NotImplementedError

    def withdraw(self, amount):
        raise NotImplementedError

    def close(self):
        raise NotImplementedError

    def convert(self, currency):
        raise NotImplementedError

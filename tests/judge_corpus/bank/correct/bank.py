RATES = {"EUR": 0.9, "GBP": 0.8}


class InsufficientFunds(ArithmeticError):
    def __init__(self, balance, amount):
        self.missing = amount - balance
        super().__init__(f"balance {balance} is short of {amount} by {self.missing}")


class AccountClosed(RuntimeError):
    pass


class Account:
    def __init__(self, balance=0):
        self.balance = balance
        self.open = True

    def _check(self, amount):
        if not self.open:
            raise AccountClosed("account is closed")
        if amount <= 0:
            raise ValueError("amount must be positive")

    def deposit(self, amount):
        self._check(amount)
        self.balance += amount

    def withdraw(self, amount):
        self._check(amount)
        if amount > self.balance:
            raise InsufficientFunds(self.balance, amount)
        self.balance -= amount

    def close(self):
        self.open = False

    def convert(self, currency):
        return self.balance * RATES[currency]

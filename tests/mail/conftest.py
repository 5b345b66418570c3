"""Fixtures for the mail tests; they live in tests/mail/fixtures.py so that other test
folders can import them the same way:

    from tests.mail.fixtures import embedded_mail, dovecot_mail, mail_server  # noqa: F401
"""

from tests.mail.fixtures import dovecot_mail, embedded_mail, mail_server  # noqa: F401

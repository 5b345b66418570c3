"""Workers on PostgreSQL: real `pbem serve` processes behind the embedded mail server on loopback."""

from tests.mail.fixtures import embedded_mail  # noqa: F401

"""The mail layer: everything between raw mail and the service.

* ``transport`` — the ``Inbox`` / ``Outgoing`` protocols the service uses, ``FetchedMail``,
  ``SendResult``, and the in-memory twins ``MemoryInbox`` / ``MemoryOutgoing``;
* ``imap.ImapInbox`` and ``smtp.SmtpSender`` — the real implementations (aioimaplib,
  aiosmtplib), hardened against the pitfalls listed in ``docs/mail.md``;
* ``embedded.EmbeddedMailServer`` — pymap IMAP + aiosmtpd SMTP on loopback, in-process;
* ``parse.read_mail`` / ``strip_quotes``, ``classify.machine_reason``,
  ``envelope.parse_envelope`` (the GAME … END block), ``compose.compose``.

Texts for envelope problems are in ``messages.toml`` (load with
``Catalog.from_package("pbem.mail")``).
"""

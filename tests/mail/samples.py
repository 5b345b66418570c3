"""Realistic raw mails for the parser tests (CRLF line endings, as on the wire)."""

from __future__ import annotations


def crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("latin-1")


LATIN1_QP = crlf("""\
Return-Path: <nicolo@example.it>
From: =?ISO-8859-1?Q?Nicol=F2_Bianchi?= <Nicolo@Example.IT>
To: pbem@localhost
Subject: =?ISO-8859-1?Q?Ordini_per_la_citt=E0?=
Date: Mon, 3 Feb 2025 10:15:00 +0100
Message-ID: <ABC123@Mail.Example.IT>
MIME-Version: 1.0
Content-Type: text/plain; charset=ISO-8859-1
Content-Transfer-Encoding: quoted-printable

Ciao, ecco gli ordini per la citt=E0.

GAME k42
SEAT north 7fq2-mh3k-p9z1
A1-B2
END

Nicol=F2
""")

CP1252_HTML_ONLY = crlf("""\
From: Jean <jean@example.fr>
To: pbem@localhost
Subject: orders
Date: Tue, 4 Feb 2025 09:00:00 +0000
Message-ID: <html1@example.fr>
MIME-Version: 1.0
Content-Type: text/html; charset=windows-1252
Content-Transfer-Encoding: quoted-printable

<html><head><style>p {color: red}</style><title>x</title></head><body>
<p>Voil=E0 mes ordres =96 merci=85</p>
<div>GAME k42<br>SEAT south abcd-efgh-jkmn<br>C3 attack D4<br>END</div>
<blockquote>old quoted text</blockquote>
<script>alert(1)</script>
</body></html>
""")

GMAIL_IT_REPLY = crlf("""\
From: Mario Rossi <mario.rossi@gmail.com>
To: pbem@localhost
Subject: Re: [pbem] k42 turno 3 =?UTF-8?Q?=E2=80=94?= rapporto
Date: Wed, 5 Feb 2025 18:22:10 +0100
Message-ID: <CAFoo+bar=baz@mail.gmail.com>
In-Reply-To: <report-3@localhost>
References: <welcome@localhost>
 <report-3@localhost>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="000000000000abcdef"

--000000000000abcdef
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

PARTITA k42
POSTO nord 7fq2-mh3k-p9z1
TURNO 3
A1-B2
FINE

Il giorno mer 5 feb 2025 alle ore 10:00 pbem <pbem@localhost> ha
scritto:

> [pbem] k42 turno 3 =E2=80=94 rapporto
> GAME k42
> SEAT nord ...
>

--000000000000abcdef
Content-Type: text/html; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

<div dir=3D"ltr">PARTITA k42<br>POSTO nord 7fq2-mh3k-p9z1<br>TURNO 3<br>A1-B2<br>F=
INE</div><br><div class=3D"gmail_quote"><div dir=3D"ltr" class=3D"gmail_attr">Il g=
iorno mer 5 feb 2025 alle ore 10:00 pbem &lt;pbem@localhost&gt; ha scritto:<br></=
div><blockquote class=3D"gmail_quote">GAME k42</blockquote></div>

--000000000000abcdef--
""")

OUTLOOK_IT_REPLY = crlf("""\
From: Giulia Verdi <giulia@outlook.it>
To: pbem@localhost
Subject: R: [pbem] k42 turno 3
Date: Wed, 5 Feb 2025 19:00:00 +0000
Message-ID: <AM0PR01MB1234@EURPRD01.prod.outlook.com>
MIME-Version: 1.0
Content-Type: text/plain; charset="iso-8859-1"
Content-Transfer-Encoding: quoted-printable

PARTITA k42
POSTO sud 1234-5678-9abc
STATO
FINE

Giulia
________________________________
Da: pbem <pbem@localhost>
Inviato: mercoled=EC 5 febbraio 2025 10:00
A: giulia@outlook.it
Oggetto: [pbem] k42 turno 3

GAME k42
SEAT sud ...
END
""")

VACATION = crlf("""\
From: Mario Rossi <mario.rossi@example.it>
To: pbem@localhost
Subject: Fuori sede / Out of office
Date: Wed, 5 Feb 2025 18:22:10 +0100
Message-ID: <vac1@example.it>
Auto-Submitted: auto-replied
X-Autoreply: yes
Content-Type: text/plain; charset=utf-8

Sono in ferie fino al 20.
""")

DSN_BOUNCE = crlf("""\
Return-Path: <>
From: Mail Delivery System <MAILER-DAEMON@mx.example.net>
To: pbem-bounces@localhost
Subject: Undelivered Mail Returned to Sender
Date: Wed, 5 Feb 2025 18:22:10 +0100
Message-ID: <dsn1@mx.example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain; charset=us-ascii

This is the mail system. Your message could not be delivered.

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
Final-Recipient: rfc822; nobody@example.net
Action: failed
Status: 5.1.1

--B
Content-Type: message/rfc822

From: pbem@localhost
Subject: [pbem] k42

GAME k42
--B--
""")

MAILING_LIST = crlf("""\
From: Someone <someone@example.org>
To: club@lists.example.org
Subject: [club] next game?
Date: Wed, 5 Feb 2025 18:22:10 +0100
Message-ID: <list1@example.org>
List-Id: Club players <club.lists.example.org>
List-Unsubscribe: <mailto:club-leave@lists.example.org>
Precedence: list
Content-Type: text/plain; charset=utf-8

HELP
""")

HUMAN = crlf("""\
Return-Path: <anna@example.com>
From: Anna <anna@example.com>
To: pbem@localhost
Subject: help
Date: Wed, 5 Feb 2025 18:22:10 +0100
Message-ID: <human1@example.com>
Content-Type: text/plain; charset=utf-8

HELP kriegspiel
""")

NO_MESSAGE_ID = crlf("""\
From: anna@example.com
To: pbem@localhost
Subject: no id

HELP
""")

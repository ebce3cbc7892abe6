import { describe, expect, it } from '@jest/globals';
import { generateInbox } from '../../../bench/generate-mail.ts';
import { DEMO_MESSAGES } from '../../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { readLight } from '../../../shared/sources/maildir/light-read.ts';
import { toSourceItem } from '../../../shared/sources/maildir/maildir-source.ts';
import { parseMail, parseMailFully, type ReadResult } from '../../../shared/sources/maildir/maildir.ts';

const FILE = '/mail/inbox/new/1741600000.000001_1.host';
const crlf = (lines: string[]): string => lines.join('\r\n');

/** The item (and its source view) of both reads; the light read must not be told apart. */
async function bothReads(raw: string | Buffer): Promise<{ light: ReadResult; full: ReadResult }> {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw;
  return { light: await parseMail(bytes, FILE), full: await parseMailFully(bytes, FILE) };
}

function sourceView(r: ReadResult) {
  return r.ok ? toSourceItem(r.item) : r;
}

/** Messages whose text is their plain-text parts: the light read takes them. */
const PLAIN: Record<string, string> = {
  'encoded-word subject and names, two To headers, a group': crlf([
    'From: =?ISO-8859-1?Q?Ren=E9e_M=FCller?= <Renee@Example.COM>',
    'To: =?UTF-8?B?QWxleCDinIU=?= <alex@northwind.example>',
    'To: team: a@team.example, "B, Two" <b@team.example>;',
    'Subject: =?UTF-8?B?UmU6IE/DuXIgcmVwb3J0IOKchQ==?= =?UTF-8?Q?_and_more?=',
    'Date: Mon, 10 Mar 2025 09:15:00 +0100',
    'Message-ID: <ew-1@example.com>',
    '',
    'Hello',
    '',
  ]),
  'quoted-printable latin-1 with soft breaks': crlf([
    'From: shop@boutique.example',
    'To: alex@northwind.example',
    'Subject: Commande =?iso-8859-1?q?confirm=E9e?=',
    'Date: Tue, 11 Mar 2025 10:00:00 +0000',
    'Message-ID: <qp-1@boutique.example>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset="ISO-8859-1"',
    'Content-Transfer-Encoding: Quoted-Printable',
    '',
    'Merci pour votre commande, le total est de 42,00 =80 et la livraison est pr=',
    '=E9vue demain. Caf=E9 cr=E8me =3D d=E9licieux.',
    '',
  ]),
  'base64 utf-8 body, folded headers, LF endings': [
    'From: "Dana Whitfield"',
    ' <dana@brightpath.example>',
    'To: alex@northwind.example',
    'Subject: A long subject that was',
    '\tfolded over two lines',
    'Date: Wed, 12 Mar 2025 08:00:00 -0500',
    'Message-ID: <b64-1@brightpath.example>',
    'References: <a@x.example>',
    ' <b@x.example>',
    'References: <c@x.example>',
    'In-Reply-To: b@x.example',
    'List-Unsubscribe: <https://x.example/u>',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('Grüße aus Köln ✅\nSecond line\r\nThird line\n', 'utf8').toString('base64'),
    '',
  ].join('\n'),
  'no Content-Type, no Message-ID, an unreadable Date, an empty first Subject': crlf([
    'From: bare@example.org',
    'Subject:',
    'Subject: second subject',
    'Date: yesterday-ish',
    '',
    'Body with no MIME headers at all.',
  ]),
  'windows-1252 8-bit body and raw UTF-8 in a header': Buffer.concat([
    Buffer.from(
      crlf([
        'From: "Zoë" <zoe@example.net>',
        'To: alex@northwind.example',
        'Subject: Café ✅',
        'Message-ID: <cp-1@example.net>',
        'Content-Type: text/plain; charset=windows-1252',
        'Content-Transfer-Encoding: 8bit',
        '',
        '',
      ]),
      'utf8',
    ),
    Buffer.from([0x93, 0x51, 0x75, 0x6f, 0x74, 0x65, 0x94, 0x20, 0x80, 0x35, 0x0d, 0x0a]),
  ]).toString('latin1'),
  'an empty body, inline disposition': crlf([
    'From: empty@example.org',
    'To: alex@northwind.example',
    'Subject: (no text)',
    'Message-ID: <empty-1@example.org>',
    'Content-Type: text/plain; charset=us-ascii',
    'Content-Disposition: inline',
    '',
    '',
  ]),
  'an attachment first': crlf([
    'From: billing@vendor.example',
    'To: alex@northwind.example',
    'Subject: Invoice',
    'Message-ID: <att-1@vendor.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="m1"',
    '',
    '--m1',
    'Content-Type: application/pdf; name="invoice.pdf"',
    'Content-Disposition: attachment; filename="invoice.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.alloc(3000, 7).toString('base64'),
    '--m1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Your invoice is attached.',
    '--m1--',
    '',
  ]),
  'multipart/alternative, plain and HTML, inside mixed with an inline text file': crlf([
    'From: Priya <priya@northwind.example>',
    'To: alex@northwind.example',
    'Subject: Notes',
    'Message-ID: <alt-1@northwind.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="outer"',
    '',
    'This is a multi-part message in MIME format.',
    '--outer',
    'Content-Type: multipart/alternative; boundary="inner"',
    '',
    '--inner',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Caf=C3=A9 at ten? The notes are below.',
    '--inner',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Caf&eacute; at ten? The notes are below.</p>',
    '--inner--',
    '--outer',
    'Content-Type: text/plain; charset=utf-8; name="notes.txt"',
    'Content-Disposition: inline; filename="notes.txt"',
    '',
    'Item one',
    'Item two',
    '--outer',
    'Content-Type: image/png; name="chart.png"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.alloc(600, 1).toString('base64'),
    '--outer--',
    '',
  ]),
};

/** Messages of any other shape: the light read leaves them to the full parse. */
const OTHER: Record<string, string> = {
  'multipart/alternative with HTML only': crlf([
    'From: news@letters.example',
    'To: alex@northwind.example',
    'Subject: HTML only',
    'Message-ID: <html-1@letters.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<html><body><h1>News</h1><p>Read <a href="https://x.example">this</a>.</p></body></html>',
    '--b1--',
    '',
  ]),
  'a single HTML part': crlf([
    'From: promo@shop.example',
    'Subject: Sale',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Everything <b>half</b> price</p>',
  ]),
  'text/plain as an attachment': crlf([
    'From: logs@ci.example',
    'Subject: Log',
    'Content-Type: text/plain',
    'Content-Disposition: attachment; filename="build.log"',
    '',
    'log line',
  ]),
  'format=flowed': crlf([
    'From: flow@example.org',
    'Subject: Flowed',
    'Content-Type: text/plain; charset=utf-8; format=flowed',
    '',
    'A line that goes on ',
    'and on.',
  ]),
  'HTML beside plain text in a mixed message': crlf([
    'From: a@b.example',
    'Subject: Mixed',
    'Content-Type: multipart/mixed; boundary="x"',
    '',
    '--x',
    'Content-Type: text/plain',
    '',
    'Plain first.',
    '--x',
    'Content-Type: text/html',
    '',
    '<p>Then <i>HTML</i>.</p>',
    '--x--',
  ]),
  'an embedded message': crlf([
    'From: postmaster@mx.example',
    'Subject: Returned mail',
    'Content-Type: multipart/mixed; boundary="r"',
    '',
    '--r',
    'Content-Type: text/plain',
    '',
    'The message below could not be delivered.',
    '--r',
    'Content-Type: message/rfc822',
    '',
    'From: alex@northwind.example',
    'Subject: Hello',
    '',
    'Original text.',
    '--r--',
  ]),
};

describe('the light read of a listed message', () => {
  it('gives the same item, source view and compact view as the full parse for every generated and demo message', async () => {
    // Prepare
    const messages = [...DEMO_MESSAGES, ...generateInbox(1000).messages].map((m) => renderMessage(m));
    for (const text of messages) {
      const raw = Buffer.from(text, 'utf8');
      // Act
      const { light, full } = await bothReads(raw);
      // Assess: the light read took it, and nobody can tell the difference
      expect(await readLight(raw)).not.toBeNull();
      expect(light.ok).toBe(true);
      expect(light).toEqual(full);
      expect(sourceView(light)).toEqual(sourceView(full));
    }
  });

  it.each(Object.entries(PLAIN))('reads a plain message (%s) as the full parse does', async (_name, raw) => {
    const { light, full } = await bothReads(raw);
    expect(await readLight(Buffer.from(raw, 'latin1'))).not.toBeNull();
    expect(light).toEqual(full);
    expect(sourceView(light)).toEqual(sourceView(full));
  });

  it.each(Object.entries(OTHER))('leaves %s to the full parse, with the same item', async (_name, raw) => {
    const { light, full } = await bothReads(raw);
    expect(await readLight(Buffer.from(raw, 'latin1'))).toBeNull();
    expect(light).toEqual(full);
  });

  it('refuses what is not a message the same way on both reads', async () => {
    for (const raw of ['', '  \r\n', 'Subject: no sender\r\n\r\nhi', Buffer.from([0, 1, 2, 3, 0, 9])]) {
      const { light, full } = await bothReads(raw);
      expect(light.ok).toBe(false);
      expect(light).toEqual(full);
    }
  });
});

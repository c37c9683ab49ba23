import { composeEmail } from '../../src/mail/email-content';
import { NoProviderMailer } from '../../src/mail/no-provider.mailer';

const email = {
  id: '0193a5f2-c3e4-7b1a-9c4e-2d6f8a0b1c2d',
  from: 'team-inbox@localhost',
  to: 'ana@example.com',
  ...composeEmail({
    subject: 'Reset your Team Inbox password',
    paragraphs: ['Hello Ana,'],
    action: { label: 'Choose a new password', url: 'http://localhost:3000/reset-password?token=secret-token-123' },
  }),
};

describe('without an e-mail provider', () => {
  it('writes the whole e-mail, link included, to the log in development, and delivers nothing', async () => {
    const lines: string[] = [];
    const mailer = new NoProviderMailer(true, { log: (message: string) => lines.push(message) });
    expect(mailer.delivers).toBe(false);
    expect(await mailer.send(email)).toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('To: ana@example.com');
    expect(lines[0]).toContain('Subject: Reset your Team Inbox password');
    expect(lines[0]).toContain('http://localhost:3000/reset-password?token=secret-token-123');
  });

  it('writes neither the content nor the address anywhere else (test, production)', async () => {
    const lines: string[] = [];
    await new NoProviderMailer(false, { log: (message: string) => lines.push(message) }).send(email);
    expect(lines).toEqual([`E-mail ${email.id} not sent: EMAIL_PROVIDER is not set`]);
  });
});

describe('composeEmail', () => {
  it('writes one draft as text and as HTML, with every value escaped in the HTML', () => {
    const content = composeEmail({
      subject: 'A <b>subject</b>\r\nBcc: someone@example.com',
      paragraphs: ['Hello <script>alert(1)</script> & "you",'],
      items: [{ text: 'An item', url: 'https://x.example/a?b=1&c="2"' }, { text: 'and 3 more' }],
      action: { label: 'Open', url: 'https://x.example/open?token=abc' },
      footer: 'Why you got this',
    });
    expect(content.subject).toBe('A <b>subject</b> Bcc: someone@example.com');
    expect(content.text).toBe(
      [
        'Hello <script>alert(1)</script> & "you",',
        '- An item\n  https://x.example/a?b=1&c="2"\n- and 3 more',
        'Open:\nhttps://x.example/open?token=abc',
        '--\nWhy you got this',
      ].join('\n\n'),
    );
    expect(content.html).toContain('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;you&quot;,</p>');
    expect(content.html).toContain('<a href="https://x.example/a?b=1&amp;c=&quot;2&quot;">An item</a>');
    expect(content.html).toContain('<li>and 3 more</li>');
    expect(content.html).toContain('href="https://x.example/open?token=abc"');
    expect(content.html).not.toContain('<script>');
  });
});

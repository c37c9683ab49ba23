/** What an e-mail says, as the providers take it: the subject, plain text and HTML. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** A line of an e-mail: text, optionally with the link it is about. */
export interface EmailLine {
  text: string;
  url?: string;
}

export interface EmailDraft {
  subject: string;
  /** Paragraphs before the list and the button. */
  paragraphs: string[];
  /** A list of items (a digest's notifications). */
  items?: EmailLine[];
  /** The one thing to do, as a button in HTML and a bare link in text. */
  action?: { label: string; url: string };
  /** Small print: why this e-mail came. */
  footer?: string;
}

/** One draft written both ways, text and HTML (every value escaped), so each client shows its best. */
export function composeEmail(draft: EmailDraft): EmailContent {
  const text = [
    ...draft.paragraphs,
    ...(draft.items?.length ? [draft.items.map((item) => `- ${item.text}${item.url ? `\n  ${item.url}` : ''}`).join('\n')] : []),
    ...(draft.action ? [`${draft.action.label}:\n${draft.action.url}`] : []),
    ...(draft.footer ? [`--\n${draft.footer}`] : []),
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5;color:#222">',
    ...draft.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(draft.items?.length
      ? [
          `<ul>${draft.items.map((item) => `<li>${item.url ? `<a href="${escapeHtml(item.url)}">${escapeHtml(item.text)}</a>` : escapeHtml(item.text)}</li>`).join('')}</ul>`,
        ]
      : []),
    ...(draft.action
      ? [
          `<p><a href="${escapeHtml(draft.action.url)}" style="display:inline-block;padding:10px 16px;background:#1a73e8;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(draft.action.label)}</a></p>`,
          `<p style="font-size:small">Or open ${escapeHtml(draft.action.url)}</p>`,
        ]
      : []),
    ...(draft.footer ? [`<p style="font-size:small;color:#666">${escapeHtml(draft.footer)}</p>`] : []),
    '</body></html>',
  ].join('\n');
  return { subject: draft.subject.replace(/[\r\n]+/g, ' '), text, html };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

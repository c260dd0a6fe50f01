import MarkdownIt from 'markdown-it';

/**
 * Model output → HTML that is safe to put in the chat view: raw HTML in the text is escaped (html:
 * false), links with javascript:/vbscript:/file: URLs are refused by markdown-it's validator, and
 * images become links, since the view loads nothing remote (its CSP would block them anyway).
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });
markdown.renderer.rules.image = (tokens, index) => {
  const token = tokens[index]!;
  const src = markdown.utils.escapeHtml(token.attrGet('src') ?? '');
  return `<a href="${src}">${markdown.utils.escapeHtml(token.content || src)}</a>`;
};

export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** The user's own text, shown as typed. */
export function renderPlain(text: string): string {
  return `<p>${markdown.utils.escapeHtml(text).replace(/\n/g, '<br>')}</p>`;
}

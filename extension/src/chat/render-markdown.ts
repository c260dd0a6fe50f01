import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import MarkdownIt from 'markdown-it';

// The languages models answer in most here; others stay plain. highlight.js marks tokens with `hljs-*`
// classes only (no inline styles, which the view's CSP refuses); view.css colours them from the theme.
for (const [name, language] of Object.entries({ bash, css, javascript, json, python, sql, typescript, xml })) hljs.registerLanguage(name, language);

/**
 * Model output → HTML that is safe to put in the chat view: raw HTML in the text is escaped (html:
 * false), links with javascript:/vbscript:/file: URLs are refused by markdown-it's validator, and
 * images become links, since the view loads nothing remote (its CSP would block them anyway).
 */
const markdown = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  // Escaped by highlight.js itself; an empty string lets markdown-it escape a block it does not know.
  highlight: (code, language) => (language && hljs.getLanguage(language) ? hljs.highlight(code, { language, ignoreIllegals: true }).value : ''),
});
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

// Model output as HTML: Markdown by marked, then sanitised by DOMPurify (nothing a model writes runs as script
// or loads anything), then code blocks coloured by highlight.js, each with a copy button. The three libraries
// come from the jar (vendor/, loaded by index.html as classic scripts: window.marked, DOMPurify, hljs).
//
// HTML the model writes outside code is shown as the text it is, but for a few bare formatting tags (<br> in a
// table cell, <sup>...): the markup DOMPurify then parses is marked's own. Parsing a model's <img onerror=...>
// at all, even in DOMPurify's detached document, makes Chromium (from 156) report a blocked inline handler
// against the page's Content-Security-Policy; and a model that writes "<div>" means the text, not an element.

import {copyText} from './clipboard.js';
import {h, icon} from './dom.js';

const PURIFY = {
  USE_PROFILES: {html: true},
  // tags and attributes that could fetch something, submit something or restyle the page
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'audio', 'video', 'source',
    'track', 'picture', 'iframe', 'object', 'embed', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'background', 'srcset', 'poster', 'ping', 'action', 'formaction', 'lowsrc', 'usemap'],
  ALLOW_DATA_ATTR: false,
};
const MAX_AUTO_HIGHLIGHT = 20000;
// tags kept as markup when written bare (no attribute can ride on them); every other '<' of raw HTML is text
const BARE_TAG = /^<\/?(br|hr|b|i|em|strong|u|s|del|ins|mark|sub|sup|small|kbd|abbr|details|summary)\s*\/?>$/i;
const TAG = /<\/?[A-Za-z][^<>]*>?/g;

function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Raw HTML of a model's answer as text, its bare formatting tags kept. */
export function rawHtmlAsText(html) {
  let out = '';
  let last = 0;
  for (const match of html.matchAll(TAG)) {
    out += escapeHtml(html.slice(last, match.index));
    out += BARE_TAG.test(match[0]) ? match[0].toLowerCase() : escapeHtml(match[0]);
    last = match.index + match[0].length;
  }
  return out + escapeHtml(html.slice(last));
}

let ready = false;

function setUp() {
  if (ready) return;
  window.marked.setOptions({gfm: true, breaks: false});
  window.marked.use({renderer: {html: token => rawHtmlAsText(token.text)}});
  window.DOMPurify.addHook('afterSanitizeAttributes', node => {
    if (node.tagName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    } else if (node.tagName === 'IMG') {
      // a picture in an answer could come from anywhere: only inline data is shown, anything else is named
      const src = node.getAttribute('src') || '';
      if (!/^data:image\/(png|jpeg|gif|webp);/i.test(src)) {
        node.removeAttribute('src');
        node.setAttribute('data-blocked', src.slice(0, 200));
      }
    }
  });
  ready = true;
}

/** Renders `text` as sanitised Markdown into `target`, replacing what was there. */
export function renderMarkdown(target, text) {
  setUp();
  streams.delete(target);
  const html = window.marked.parse(text || '', {async: false});
  target.innerHTML = window.DOMPurify.sanitize(html, PURIFY);
  decorate(target);
}

// What renderStreaming last put in each target: the text, where its finished blocks end, the last block's nodes.
const streams = new WeakMap();

/**
 * Renders a growing answer as renderMarkdown would, but parses, sanitises and highlights only its last block
 * again: the blocks before it are finished (a later line cannot reopen them, but for rare cases such as a
 * reference link defined further on, which the whole render at the end settles) and keep the nodes they got.
 * Re-rendering the whole answer at every piece made a long answer quadratic in its length. A list that is the last
 * block is drawn item by item the same way: its finished items stay, only its last one is drawn again.
 */
export function renderStreaming(target, text) {
  setUp();
  text = (text || '').replace(/\r\n?/g, '\n');
  let state = streams.get(target);
  if (!state || !text.startsWith(state.text.slice(0, state.stable))) {
    target.replaceChildren();
    state = {text: '', stable: 0, tail: [], code: null, list: null};
    streams.set(target, state);
  }
  if (state.code && growsOpenCode(state, text)) return;
  state.code = null;
  for (const node of state.tail) node.remove();
  const tokens = window.marked.lexer(text.slice(state.stable));
  // the last block still grows; so does a list or a paragraph before trailing blank lines
  let open = tokens.length - 1;
  while (open > 0 && tokens[open].type === 'space') open--;
  let stable = state.stable;
  let first = 0;
  if (state.list) {
    // the text from `stable` on goes on with the list drawn so far: its items join it
    const list = tokens[0];
    if (list?.type !== 'list' || list.ordered !== state.list.ordered) {
      streams.delete(target);
      renderStreaming(target, text);
      return;
    }
    if (open === 0) {
      state.stable = stable + appendItems(state.list, list, list.items.length - 1, tokens.links);
      state.tail = itemNodes(state.list, list, list.items.at(-1), tokens.links);
      state.list.element.append(...state.tail);
      state.text = text;
      return;
    }
    appendItems(state.list, list, list.items.length, tokens.links);
    stable += list.raw.length;
    state.list = null;
    first = 1;
  }
  for (let i = first; i < open; i++) {
    target.append(...renderTokens([tokens[i]], tokens.links));
    stable += tokens[i].raw.length;
  }
  state.tail = [];
  if (open >= first && tokens[open].type === 'list') {
    // a list still growing: drawn once as an empty list, its items appended as they finish
    const list = tokens[open];
    const nodes = renderTokens([{...list, items: [], raw: ''}], tokens.links);
    const element = nodes.find(node => node.nodeType === Node.ELEMENT_NODE);
    target.append(...nodes);
    state.list = {element, ordered: list.ordered, loose: false};
    stable += appendItems(state.list, list, list.items.length - 1, tokens.links);
    state.tail = itemNodes(state.list, list, list.items.at(-1), tokens.links);
    element.append(...state.tail);
  } else if (open >= first) {
    state.tail = renderTokens(tokens.slice(open), tokens.links);
    target.append(...state.tail);
  }
  state.stable = stable;
  state.text = text;
  const close = open >= 0 && tokens.length - 1 === open ? openFence(tokens[open]) : null;
  const code = close ? state.tail.find(node => node.querySelector)?.querySelector('pre > code') : null;
  if (code) {
    // what the block holds as written, after its fence line; shown as marked drew it, less what it trims at the end
    const raw = tokens[open].raw;
    const written = raw.slice(raw.indexOf('\n') + 1);
    const shown = code.textContent;
    if (written.startsWith(shown)) {
      code.append(written.slice(shown.length));
      state.code = {close, code};
    }
  }
}

/** Appends the first `count` items of `list` to the list drawn so far; returns the length of their text. */
function appendItems(drawn, list, count, links) {
  let length = 0;
  for (const item of list.items.slice(0, count)) {
    drawn.element.append(...itemNodes(drawn, list, item, links));
    length += item.raw.length;
  }
  return length;
}

/**
 * One item as the list's whole render draws it: its <li> and the line break after it. A list is loose (its items'
 * text in paragraphs) once any part of it was: items read apart from the ones before them take it from them, as
 * marked sets it for the whole list.
 */
function itemNodes(drawn, list, item, links) {
  drawn.loose ||= list.loose;
  if (drawn.loose && !item.loose) {
    item.loose = true;
    for (const token of item.tokens) {
      if (token.type === 'text') token.type = 'paragraph';
    }
  }
  const nodes = renderTokens([{...list, loose: drawn.loose, items: [item], raw: item.raw}], links);
  const element = nodes.find(node => node.nodeType === Node.ELEMENT_NODE);
  return [...element.childNodes].slice(1);
}

/**
 * A fenced code block still open at the end of the answer grows by appending what came to its text, unhighlighted:
 * lexing, sanitising and highlighting the whole block again at every piece made a long one quadratic in its length.
 * Once its closing fence comes (or the text is no longer the same before it), the block is drawn whole again,
 * highlighted, as renderMarkdown draws it. Returns false when it must be.
 */
function growsOpenCode(state, text) {
  if (!text.startsWith(state.text)) return false;
  const added = text.slice(state.text.length);
  // a closing fence: a line of the fence's character, at least as many, up to 3 spaces before; looked for in what
  // came and the last line before it
  const lineStart = state.text.lastIndexOf('\n') + 1;
  if (text.slice(lineStart).split('\n').some(line => state.code.close.test(line))) return false;
  state.code.code.append(added);
  state.text = text;
  return true;
}

/**
 * For a fenced code block the text ends inside (no closing fence yet), what a line closing it looks like (the
 * fence's character, at least as many, up to 3 spaces before); else null.
 */
function openFence(token) {
  if (token.type !== 'code') return null;
  const match = /^ {0,3}(`{3,}|~{3,})/.exec(token.raw);
  const newline = token.raw.indexOf('\n');
  if (!match || newline < 0) return null;
  const fence = match[1];
  const closing = new RegExp('^ {0,3}' + (fence[0] === '`' ? '`' : '~') + '{' + fence.length + ',}[ \\t]*$');
  return token.raw.slice(newline + 1).split('\n').some(line => closing.test(line)) ? null : closing;
}

function renderTokens(tokens, links) {
  const list = Object.assign(tokens, {links: links || {}});
  const holder = document.createElement('div');
  holder.innerHTML = window.DOMPurify.sanitize(window.marked.parser(list), PURIFY);
  decorate(holder);
  return [...holder.childNodes];
}

function decorate(root) {
  for (const img of root.querySelectorAll('img[data-blocked]')) {
    const alt = img.getAttribute('alt') || 'picture';
    const where = img.getAttribute('data-blocked');
    img.replaceWith(h('span', {class: 'blocked-picture', title: where}, `[${alt}: not loaded${where ? `, ${where}` : ''}]`));
  }
  for (const table of root.querySelectorAll('table')) {
    const wrap = h('div', {class: 'table-wrap'});
    table.replaceWith(wrap);
    wrap.append(table);
  }
  for (const code of root.querySelectorAll('pre > code')) {
    const pre = code.parentElement;
    const source = code.textContent;
    const language = languageOf(code);
    highlight(code, source, language);
    const block = h('div', {class: 'code-block'});
    const copy = h('button', {type: 'button', class: 'icon-button small', 'aria-label': 'Copy code', title: 'Copy code'},
      icon('copy'));
    copy.addEventListener('click', async () => {
      const ok = await copyText(source);
      copy.replaceChildren(icon(ok ? 'check' : 'close'));
      setTimeout(() => copy.replaceChildren(icon('copy')), 1500);
    });
    pre.replaceWith(block);
    block.append(h('div', {class: 'code-head'}, h('span', {text: language || 'text'}), copy), pre);
  }
}

function languageOf(code) {
  const match = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className);
  return match ? match[1].toLowerCase() : '';
}

function highlight(code, source, language) {
  const hljs = window.hljs;
  let result = null;
  if (language && hljs.getLanguage(language)) {
    result = hljs.highlight(source, {language, ignoreIllegals: true});
  } else if (!language && source.length <= MAX_AUTO_HIGHLIGHT) {
    result = hljs.highlightAuto(source);
  }
  if (result) {
    // highlight.js escapes the text it wraps in its spans
    code.innerHTML = result.value;
  }
  code.classList.add('hljs');
}

// The list of conversations: newest first, filtered by the search box, each with its delete button.

import {h, iconButton} from './dom.js';
import {searchText} from './conversation.js';

const DAY = 24 * 3600 * 1000;

export function renderConversationList(root, conversations, activeId, query, actions) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = conversations.filter(c => words.every(w => searchText(c).includes(w)));
  if (shown.length === 0) {
    root.replaceChildren(h('p', {class: 'empty-list',
      text: conversations.length ? 'No conversation matches.' : 'Your conversations will be listed here.'}));
    return;
  }
  root.replaceChildren(...shown.map(c => h('div', {class: c.id === activeId ? 'conversation active' : 'conversation'},
    h('button', {type: 'button', class: 'open', onclick: () => actions.open(c.id),
      'aria-current': c.id === activeId ? 'true' : undefined},
    h('span', {class: 'title', text: c.title}),
    h('span', {class: 'when', text: when(c.updated)})),
    iconButton('trash', `Delete "${c.title}"`, () => actions.remove(c.id), 'remove'))));
}

function when(time) {
  const date = new Date(time);
  if (Date.now() - time < DAY && date.getDate() === new Date().getDate()) {
    return date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
  }
  return date.toLocaleDateString([], {year: 'numeric', month: 'short', day: 'numeric'});
}

/** Saves `data` as a JSON file through a download link: a blob URL, nothing goes over the network. */
export function downloadJson(name, data) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], {type: 'application/json'}));
  const link = h('a', {href: url, download: name});
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

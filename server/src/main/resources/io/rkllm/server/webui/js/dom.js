// Small DOM helpers: elements built from data (never from HTML strings) and the page's icons as inline SVG.

const SVG = 'http://www.w3.org/2000/svg';

// Icon outlines (24x24, stroked), drawn for this page.
const ICONS = {
  plus: ['M12 5v14', 'M5 12h14'],
  menu: ['M4 6h16', 'M4 12h16', 'M4 18h16'],
  settings: ['M4 7h10', 'M18 7h2', 'M16 5v4', 'M4 17h4', 'M12 17h8', 'M10 15v4'],
  theme: ['M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z'],
  send: ['M5 12h14', 'M13 6l6 6-6 6'],
  stop: ['M7 7h10v10H7z'],
  image: ['M4 5h16v14H4z', 'M4 16l5-5 4 4 3-3 4 4', 'M15.5 9.5h.01'],
  copy: ['M9 9h11v11H9z', 'M5 15H4V4h11v1'],
  check: ['M5 12l5 5 9-10'],
  edit: ['M4 20h4L19 9l-4-4L4 16z', 'M13.5 6.5l4 4'],
  regenerate: ['M20 11a8 8 0 1 0-2.3 5.7', 'M20 4v7h-7'],
  trash: ['M4 7h16', 'M10 11v6', 'M14 11v6', 'M6 7l1 13h10l1-13', 'M9 7V4h6v3'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  download: ['M12 4v11', 'M7 10l5 5 5-5', 'M5 20h14'],
  upload: ['M12 20V9', 'M7 14l5-5 5 5', 'M5 4h14'],
};

export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  for (const d of ICONS[name] || []) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

/** h('div', {class: 'x', onclick: f}, 'text', child): properties starting with "on" are listeners. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      el.className = value;
    } else if (key === 'text') {
      el.textContent = value;
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A small icon button with an accessible name. */
export function iconButton(name, label, onclick, extraClass = '') {
  return h('button', {type: 'button', class: `icon-button small ${extraClass}`.trim(), 'aria-label': label,
    title: label, onclick}, icon(name));
}

/** Puts the icon named by data-icon in front of each such element's text. */
export function decorateIcons(root) {
  for (const el of root.querySelectorAll('[data-icon]')) {
    el.prepend(icon(el.dataset.icon));
  }
}

// Light, dark, or as the system says. The page's colours follow data-theme on <html> (CSS), the code colours
// follow which of highlight.js's two stylesheets applies.

const ORDER = ['auto', 'light', 'dark'];

export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') {
    root.dataset.theme = theme;
  } else {
    delete root.dataset.theme;
  }
  const light = document.getElementById('code-light');
  const dark = document.getElementById('code-dark');
  if (light && dark) {
    light.media = theme === 'light' ? 'all' : theme === 'dark' ? 'not all' : '(prefers-color-scheme: light)';
    dark.media = theme === 'dark' ? 'all' : theme === 'light' ? 'not all' : '(prefers-color-scheme: dark)';
  }
}

export function nextTheme(theme) {
  return ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length];
}

export function themeLabel(theme) {
  return theme === 'auto' ? 'Theme: as the system' : `Theme: ${theme}`;
}

// Identifiers for conversations and messages. crypto.randomUUID() exists only in secure contexts (https or
// localhost), and the page is usually opened as http://board-address:8080/, so random bytes are used instead.

export function newId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

// Server-sent events from a fetch body: the server writes each event as "data: <json>\n\n" and comments
// (": keep-alive", ": X-RKLLM-Incomplete: ...") on their own; both are handed on in order.

export async function* serverEvents(body) {
  for await (const block of pieces(body, /\r?\n\r?\n/)) {
    const event = parseBlock(block);
    if (event) yield event;
  }
}

/**
 * The text of a fetch body cut at each match of `separator` (and the rest at its end), in order, decoded as UTF-8
 * across chunk boundaries.
 */
async function* pieces(body, separator) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (true) {
      const {value, done} = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), {stream: !done});
      let match;
      while ((match = separator.exec(buffer)) !== null) {
        yield buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
      }
      if (done) {
        yield buffer;
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block) {
  const data = [];
  const comments = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
    } else if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
    }
  }
  if (data.length) return {data: data.join('\n')};
  if (comments.length) return {comment: comments.join('\n')};
  return null;
}

/** NDJSON from a fetch body (Ollama's streams): one parsed object per line, in order; a line that is no JSON is skipped. */
export async function* jsonLines(body) {
  for await (const line of pieces(body, /\n/)) {
    const item = parseLine(line.trim());
    if (item) yield item;
  }
}

function parseLine(line) {
  if (!line) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

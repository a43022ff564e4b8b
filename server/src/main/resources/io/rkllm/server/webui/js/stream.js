// Server-sent events from a fetch body: the server writes each event as "data: <json>\n\n" and comments
// (": keep-alive", ": X-RKLLM-Incomplete: ...") on their own; both are handed on in order.

export async function* serverEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (true) {
      const {value, done} = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), {stream: !done});
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const event = parseBlock(block);
        if (event) yield event;
      }
      if (done) {
        const event = parseBlock(buffer);
        if (event) yield event;
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
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (true) {
      const {value, done} = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), {stream: !done});
      let end;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        const item = parseLine(line);
        if (item) yield item;
      }
      if (done) {
        const item = parseLine(buffer.trim());
        if (item) yield item;
        return;
      }
    }
  } finally {
    reader.releaseLock();
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

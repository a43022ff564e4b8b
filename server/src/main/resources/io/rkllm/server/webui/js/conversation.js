// A conversation as the page keeps it, and what a chat request sends of it.
//
// {id, title, model, created, updated, messages: [
//   {id, role: 'user', text, images: [{name, type, dataUrl}]},
//   {id, role: 'assistant', model, content, reasoning, finish, stopped, error: {status, code, message},
//    notes: [], stats: {ttftMs, tokensPerSecond, completionTokens, promptTokens, cachedTokens, prefilledTokens,
//    prefillMs}}]}

import {newId} from './ids.js';

export function newConversation(model) {
  const now = Date.now();
  return {id: newId(), title: 'New chat', model, created: now, updated: now, messages: []};
}

export function userMessage(text, images) {
  return {id: newId(), role: 'user', text, images: images || []};
}

export function assistantMessage(model) {
  return {id: newId(), role: 'assistant', model, content: '', reasoning: '', finish: null, stopped: false,
    error: null, notes: [], stats: null};
}

export function titleOf(text) {
  const line = (text || '').replace(/\s+/g, ' ').trim();
  if (!line) return 'Pictures';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/**
 * The messages of a chat request for the answer at `upTo` (the messages before it): the system prompt, then the
 * conversation. Earlier answers go back as their text only (the server leaves thinking out anyway), failed
 * answers not at all. The same messages in the same order each turn let the server's KV cache prefill only
 * what is new.
 */
export function requestMessages(conversation, systemPrompt, upTo) {
  const messages = [];
  if (systemPrompt && systemPrompt.trim()) {
    messages.push({role: 'system', content: systemPrompt});
  }
  for (const m of conversation.messages.slice(0, upTo)) {
    if (m.role === 'user') {
      if (m.images && m.images.length) {
        const parts = [];
        if (m.text) parts.push({type: 'text', text: m.text});
        for (const image of m.images) parts.push({type: 'image_url', image_url: {url: image.dataUrl}});
        messages.push({role: 'user', content: parts});
      } else {
        messages.push({role: 'user', content: m.text});
      }
    } else if (m.role === 'assistant' && m.content) {
      messages.push({role: 'assistant', content: m.content});
    }
  }
  return messages;
}

/**
 * The id the server's KV cache knows this conversation by (docs/api.md): sent as prompt_cache_key and as the
 * X-OpenWebUI-Chat-Id header, so that a follow-up, an edit or a regenerated answer reuses this chat's cache slot.
 */
export function cacheKey(conversation) {
  return `webui-${conversation.id}`;
}

/** Every text of the conversation, for the search box. */
export function searchText(conversation) {
  return [conversation.title, ...conversation.messages.map(m => (m.role === 'user' ? m.text : m.content) || '')]
    .join('\n').toLowerCase();
}

/** Statistics of one answer from what the server reported (usage, timings) and when its first token came. */
export function statsOf(usage, timings, ttftMs) {
  const stats = {ttftMs};
  if (usage) {
    stats.promptTokens = usage.prompt_tokens;
    stats.completionTokens = usage.completion_tokens;
    stats.cachedTokens = usage.prompt_tokens_details ? usage.prompt_tokens_details.cached_tokens : undefined;
  }
  if (timings) {
    stats.tokensPerSecond = timings.predicted_per_second;
    stats.prefilledTokens = timings.prompt_n;
    stats.prefillMs = timings.prompt_ms;
    if (stats.cachedTokens === undefined) stats.cachedTokens = timings.cache_n;
  }
  return stats;
}

/** Checks an imported file: a list of conversations as exported (or one conversation). */
export function importable(data) {
  const list = Array.isArray(data) ? data : data && Array.isArray(data.conversations) ? data.conversations : [data];
  return list.filter(c => c && typeof c.id === 'string' && Array.isArray(c.messages)).map(c => ({
    id: c.id,
    title: typeof c.title === 'string' ? c.title : 'Imported chat',
    model: typeof c.model === 'string' ? c.model : '',
    created: Number(c.created) || Date.now(),
    updated: Number(c.updated) || Date.now(),
    messages: c.messages.filter(m => m && (m.role === 'user' || m.role === 'assistant')).map(m => ({
      ...m,
      id: typeof m.id === 'string' ? m.id : newId(),
      text: typeof m.text === 'string' ? m.text : undefined,
      content: typeof m.content === 'string' ? m.content : m.role === 'assistant' ? '' : undefined,
      images: Array.isArray(m.images) ? m.images.filter(i => i && /^data:image\//.test(i.dataUrl || '')) : [],
    })),
  }));
}

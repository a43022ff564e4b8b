// One answer: the chat request for the messages before it, streamed into the answer message as it comes.

import {ApiError} from './api.js';
import {cacheKey, requestMessages, statsOf} from './conversation.js';
import {samplingFields} from './settings.js';

const NOTE_HEADERS = {
  'X-RKLLM-Context-Trimmed': value => `The model did not see the oldest part of this chat: ${value}.`,
  'X-RKLLM-Images-Ignored': value => `Pictures left out: ${value}.`,
  'X-RKLLM-Sampling': value => `Sampling: ${value}.`,
};

/**
 * Fills conversation.messages[index] (an empty assistant message) from the server's stream; `changed` is called
 * after every piece. Resolves when the answer has ended, failed or was stopped through `signal`.
 */
export async function generate({api, conversation, index, model, settings, signal, changed}) {
  const answer = conversation.messages[index];
  const body = {
    model: model.id,
    messages: requestMessages(conversation, settings.systemPrompt, index),
    stream: true,
    stream_options: {include_usage: true},
    prompt_cache_key: cacheKey(conversation),
    ...samplingFields(settings),
  };
  if (model.capabilities && model.capabilities.thinking) {
    body.chat_template_kwargs = {enable_thinking: !!settings.thinking};
  }
  const started = performance.now();
  let firstToken = null;
  let firstContent = null;
  try {
    for await (const item of api.chat(body, cacheKey(conversation), signal)) {
      if (item.headers) {
        for (const [name, note] of Object.entries(NOTE_HEADERS)) {
          const value = item.headers.get(name);
          if (value) answer.notes.push(note(value));
        }
      } else if (item.reasoning !== undefined) {
        firstToken ??= performance.now();
        answer.reasoning += item.reasoning;
      } else if (item.content !== undefined) {
        firstToken ??= performance.now();
        firstContent ??= performance.now();
        answer.content += item.content;
      } else if (item.finish) {
        answer.finish = item.finish;
      } else if (item.usage) {
        answer.stats = statsOf(item.usage, item.timings, firstToken === null ? null : firstToken - started);
      } else if (item.note) {
        answer.notes.push(item.note);
      } else if (item.error) {
        answer.error = errorOf(item.error);
      }
      if (answer.reasoning && firstToken !== null) {
        answer.thinkingMs = (firstContent ?? performance.now()) - firstToken;
      }
      changed();
    }
  } catch (e) {
    if (e && e.name === 'AbortError') {
      answer.stopped = true;
    } else {
      answer.error = errorOf(e);
    }
  }
  if (!answer.stats && firstToken !== null) {
    answer.stats = {ttftMs: firstToken - started};
  }
  if (!answer.error && !answer.stopped && !answer.finish) {
    answer.error = {status: 0, code: 'incomplete', message: 'the answer ended before the server finished it'};
  }
  changed();
}

function errorOf(e) {
  if (e instanceof ApiError) {
    return {status: e.status, code: e.code, message: e.message};
  }
  return {status: 0, code: null, message: e && e.message ? e.message : String(e)};
}

// The server's API as the page uses it: the model list and streamed chat completions (OpenAI's format), and the
// download of a model (Ollama's /api/pull), same origin, with the API key from the settings when there is one. Paths are relative to the page, so that it also
// works behind a proxy that serves the server under a path (https://host/rkllm/).

import {jsonLines, serverEvents} from './stream.js';

/** An error the server answered (its OpenAI-shaped body), or one of the connection. */
export class ApiError extends Error {
  constructor(status, code, message, type) {
    super(message);
    this.status = status;
    this.code = code;
    this.type = type;
  }

  static async of(response) {
    let message = `${response.status} ${response.statusText}`.trim();
    let code = null;
    let type = null;
    try {
      const text = await response.text();
      try {
        const body = JSON.parse(text);
        const error = body.error || body;
        message = error.message || (typeof error === 'string' ? error : message);
        code = error.code || null;
        type = error.type || null;
      } catch {
        if (text.trim()) message = text.trim().slice(0, 500);
      }
    } catch {
      // the body could not be read: the status says enough
    }
    return new ApiError(response.status, code, message, type);
  }

  static fromEvent(error) {
    return new ApiError(0, error.code || null, error.message || 'the generation failed', error.type || null);
  }
}

export class Api {
  constructor(apiKey) {
    this.apiKey = apiKey;
  }

  headers(json) {
    const headers = {Accept: json ? 'text/event-stream, application/json' : 'application/json'};
    if (json) headers['Content-Type'] = 'application/json';
    const key = this.apiKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    return headers;
  }

  async models() {
    let response;
    try {
      response = await fetch('v1/models', {headers: this.headers(false), cache: 'no-store'});
    } catch (e) {
      throw new ApiError(0, 'unreachable', `the server cannot be reached (${e.message})`);
    }
    if (!response.ok) throw await ApiError.of(response);
    const body = await response.json();
    return Array.isArray(body.data) ? body.data : [];
  }

  /**
   * Pulls a model into the server's models directory: yields Ollama's progress lines ({status, digest, total,
   * completed}, then {status: 'success'}, or {error}). An abort through `signal` closes the connection, which stops
   * the download on the server (what it downloaded is kept: pulling again resumes).
   */
  async* pull(model, signal) {
    let response;
    try {
      response = await fetch('api/pull', {
        method: 'POST',
        headers: this.headers(true),
        body: JSON.stringify({model, stream: true}),
        signal,
        cache: 'no-store',
      });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, 'unreachable', `the server cannot be reached (${e.message})`);
    }
    if (!response.ok) throw await ApiError.of(response);
    yield* jsonLines(response.body);
  }

  /**
   * Streams one chat completion: yields {headers}, then {content}, {reasoning}, {finish}, {usage, timings},
   * {note} and {error} items as they come. `conversationId` names the chat for the server's KV cache. An abort
   * through `signal` closes the connection, which the server takes as the end of the generation.
   */
  async* chat(body, conversationId, signal) {
    let response;
    try {
      response = await fetch('v1/chat/completions', {
        method: 'POST',
        // the conversation's id as a header too: the multi-board proxy of docs/scaling.md keeps a chat on the
        // board whose KV cache holds it by this header
        headers: {...this.headers(true), 'X-OpenWebUI-Chat-Id': conversationId},
        body: JSON.stringify(body),
        signal,
        cache: 'no-store',
      });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, 'unreachable', `the server cannot be reached (${e.message})`);
    }
    if (!response.ok) throw await ApiError.of(response);
    yield {headers: response.headers};
    for await (const event of serverEvents(response.body)) {
      if (event.comment !== undefined) {
        const incomplete = /^X-RKLLM-Incomplete:\s*(.*)$/i.exec(event.comment);
        if (incomplete) yield {note: incomplete[1]};
        continue;
      }
      if (event.data === '[DONE]') return;
      let chunk;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        continue;
      }
      if (chunk.error) {
        yield {error: ApiError.fromEvent(chunk.error)};
        return;
      }
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : null;
      if (choice && choice.delta) {
        if (choice.delta.reasoning_content) yield {reasoning: choice.delta.reasoning_content};
        if (choice.delta.content) yield {content: choice.delta.content};
      }
      if (choice && choice.finish_reason) yield {finish: choice.finish_reason};
      if (chunk.usage) yield {usage: chunk.usage, timings: chunk.timings || null};
    }
  }
}

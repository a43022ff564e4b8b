// The conversation on screen: user messages as plain text (never HTML), answers as sanitised Markdown with their
// thinking folded apart, the server's numbers, notes and errors, and the actions on each message.

import {h, iconButton} from './dom.js';
import {renderMarkdown, renderStreaming} from './markdown.js';
import {copyText} from './clipboard.js';

export class MessagesView {
  /** actions: {edit(index, text), regenerate(index), remove(index)} */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.nodes = new Map();
    this.conversation = null;
    this.busyIndex = -1;
  }

  show(conversation, busyIndex, welcome) {
    this.conversation = conversation;
    this.busyIndex = busyIndex;
    this.nodes.clear();
    this.root.replaceChildren();
    if (!conversation || conversation.messages.length === 0) {
      this.root.append(welcome);
      return;
    }
    conversation.messages.forEach((message, index) => {
      const node = message.role === 'user' ? this.userNode(message, index) : this.answerNode(message, index);
      this.nodes.set(message.id, node);
      this.root.append(node.root);
    });
    this.scrollToEnd(true);
  }

  /** Redraws the answer at `index` in place (while it streams), keeping its thinking open or folded. */
  update(index) {
    const message = this.conversation && this.conversation.messages[index];
    const node = message && this.nodes.get(message.id);
    if (!node) return;
    const stick = this.nearEnd();
    this.fillAnswer(node, message, index);
    if (stick) this.scrollToEnd(false);
  }

  nearEnd() {
    return this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 80;
  }

  scrollToEnd(always) {
    if (always || this.nearEnd()) this.root.scrollTop = this.root.scrollHeight;
  }

  busy() {
    return this.busyIndex >= 0;
  }

  userNode(message, index) {
    const root = h('article', {class: 'message user', 'data-role': 'user'});
    const bubble = h('div', {class: 'bubble', text: message.text || ''});
    const pictures = message.images && message.images.length
      ? h('div', {class: 'pictures'}, message.images.map(i => h('img', {src: i.dataUrl, alt: i.name || 'picture'})))
      : null;
    const actions = h('div', {class: 'actions'},
      iconButton('copy', 'Copy', () => copyText(message.text || '')),
      this.busy() ? null : iconButton('edit', 'Edit and send again', () => this.startEdit(root, bubble, message, index)),
      this.busy() ? null : iconButton('trash', 'Delete this message and its answer', () => this.actions.remove(index)));
    if (!message.text) bubble.hidden = true;
    root.append(...[h('div', {class: 'who', text: 'You'}), pictures, bubble, actions].filter(Boolean));
    return {root};
  }

  startEdit(root, bubble, message, index) {
    const area = h('textarea', {'aria-label': 'Edit the message'});
    area.value = message.text || '';
    const box = h('div', {class: 'edit-box'}, area, h('div', {class: 'row'},
      h('button', {type: 'button', class: 'button ghost', text: 'Cancel', onclick: () => box.replaceWith(bubble)}),
      h('button', {type: 'button', class: 'button primary', text: 'Send', onclick: () => this.actions.edit(index, area.value)})));
    area.addEventListener('keydown', e => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.actions.edit(index, area.value);
      } else if (e.key === 'Escape') {
        box.replaceWith(bubble);
      }
    });
    bubble.replaceWith(box);
    area.focus();
  }

  answerNode(message, index) {
    const node = {
      root: h('article', {class: 'message assistant', 'data-role': 'assistant'}),
      who: h('div', {class: 'who'}),
      thinking: h('details', {class: 'thinking'}, h('summary'), h('div', {class: 'md'})),
      content: h('div', {class: 'content md'}),
      status: h('div', {class: 'status'}),
      actions: h('div', {class: 'actions'}),
      rendered: {content: null, reasoning: null, streaming: false},
    };
    node.root.append(node.who, node.thinking, node.content, node.status, node.actions);
    this.fillAnswer(node, message, index);
    return node;
  }

  fillAnswer(node, message, index) {
    const streaming = index === this.busyIndex;
    node.root.classList.toggle('streaming', streaming);
    node.who.textContent = message.model || 'assistant';
    node.thinking.hidden = !message.reasoning;
    // while it streams only the answer's last block is rendered again; once it ends, the whole answer once more
    const render = streaming ? renderStreaming : renderMarkdown;
    const settled = node.rendered.streaming && !streaming;
    node.rendered.streaming = streaming;
    if (message.reasoning && (settled || node.rendered.reasoning !== message.reasoning)) {
      render(node.thinking.lastElementChild, message.reasoning);
      node.rendered.reasoning = message.reasoning;
    }
    const seconds = message.thinkingMs ? ` for ${(message.thinkingMs / 1000).toFixed(1)} s` : '';
    const words = (message.reasoning || '').split(/\s+/).filter(Boolean).length;
    node.thinking.firstElementChild.textContent = streaming && !message.content
      ? `Thinking… (${words} words so far)` : `Thought${seconds}`;
    if (settled || node.rendered.content !== message.content) {
      render(node.content, message.content);
      node.rendered.content = message.content;
    }
    const status = [];
    if (streaming && !message.content && !message.reasoning) {
      status.push(h('p', {class: 'waiting', text: 'Waiting for the model (it loads on its first message)…'}));
    }
    if (message.error) {
      const code = message.error.code ? ` (${message.error.code})` : '';
      const http = message.error.status ? `${message.error.status}${code}: ` : code ? `${code.trim()}: ` : '';
      status.push(h('div', {class: 'error-box', role: 'alert'}, h('strong', {text: 'Error '}), `${http}${message.error.message}`));
    }
    if (message.stopped) status.push(h('p', {class: 'note', text: 'Stopped.'}));
    if (message.finish === 'length') status.push(h('p', {class: 'note', text: 'The answer reached its token limit.'}));
    for (const note of message.notes || []) status.push(h('p', {class: 'note', text: note}));
    node.status.replaceChildren(...status);
    // replaceChildren writes a null as the text "null": the parts not shown are left out
    node.actions.replaceChildren(...[
      statsLine(message.stats),
      streaming ? null : iconButton('copy', 'Copy the answer', () => copyText(message.content || '')),
      streaming || this.busy() ? null : iconButton('regenerate', 'Regenerate', () => this.actions.regenerate(index)),
      streaming || this.busy() ? null : iconButton('trash', 'Delete this answer', () => this.actions.remove(index)),
    ].filter(Boolean));
  }
}

function statsLine(stats) {
  if (!stats) return null;
  const parts = [];
  const details = [];
  if (typeof stats.ttftMs === 'number') parts.push(`first token ${(stats.ttftMs / 1000).toFixed(2)} s`);
  if (typeof stats.tokensPerSecond === 'number' && stats.tokensPerSecond > 0) {
    parts.push(`${stats.tokensPerSecond.toFixed(1)} tokens/s`);
  }
  if (typeof stats.completionTokens === 'number') parts.push(`${stats.completionTokens} tokens`);
  if (typeof stats.cachedTokens === 'number' && typeof stats.promptTokens === 'number') {
    parts.push(`${stats.cachedTokens} of ${stats.promptTokens} prompt tokens from the cache`);
  }
  if (typeof stats.prefilledTokens === 'number' && typeof stats.prefillMs === 'number') {
    details.push(`prefilled ${stats.prefilledTokens} tokens in ${Math.round(stats.prefillMs)} ms`);
  }
  details.push('first token: measured by this page from sending to the first piece of the answer; the rest as the server reported it');
  return h('span', {class: 'stats', title: details.join('; ')}, parts.join(' · '));
}

/**
 * The empty conversation's text: the model that answers, or, on a server without any (`openDownload` given), how to
 * get one.
 */
export function welcome(model, openDownload) {
  return h('div', {class: 'welcome'},
    h('h1', {text: 'Chat on this board'}),
    model || !openDownload
      ? h('p', {text: model
        ? `${model.name || model.id} answers here, on this machine: nothing leaves it. Pick another model above; pictures work with vision models.`
        : 'Answers are generated here, on this machine: nothing leaves it.'})
      : h('div', {class: 'no-model'},
        h('p', {text: 'There is no model on this server yet. Download one by its Ollama name or from the Hugging Face Hub:'}),
        h('button', {type: 'button', class: 'button primary', id: 'welcome-download', text: 'Download a model',
          onclick: openDownload}),
        h('p', {text: 'or on the board (docs/models.md recommends models for each board):'}),
        h('pre', {}, h('code', {text: 'rkllm-server pull qwen3:4b\nrkllm-server pull bartowski/Qwen2.5-1.5B-Instruct-GGUF'})),
        h('p', {text: 'A model downloaded or copied into the models directory appears here without a restart.'})));
}

// The page's state and what can be done with it: the conversations and the current one, the model list, the
// answer being streamed; drawing them through the views, keeping them in the store.

import {ApiError} from './api.js';
import {generate} from './chat.js';
import {assistantMessage, importable, newConversation, titleOf, userMessage} from './conversation.js';
import {h} from './dom.js';
import {welcome} from './messages.js';
import {canSee, chatModels, defaultModel, renderModelPicker} from './models.js';
import {renderConversationList} from './sidebar.js';

const SAVE_WHILE_STREAMING_MS = 2000;

export class ChatApp {
  /**
   * els: {banner, conversations, model, modelFacts}; view: MessagesView; composer: Composer;
   * hooks: {conversationOpened(), openSettings()}
   */
  constructor({settings, store, api, els, view, composer, hooks}) {
    this.settings = settings;
    this.store = store;
    this.api = api;
    this.els = els;
    this.view = view;
    this.composer = composer;
    this.hooks = hooks;
    this.models = [];
    this.modelsLoaded = false; // until the first list arrives, an empty one says nothing
    this.conversations = [];
    this.current = null;
    this.busy = null; // {conversation, index, controller} while an answer streams
    this.query = '';
  }

  async load() {
    this.conversations = await this.store.all();
    this.current = this.conversations[0] || newConversation('');
    await this.store.pictures(this.current);
  }

  model() {
    return this.models.find(m => m.id === this.current.model) || null;
  }

  banner(message, action) {
    const el = this.els.banner;
    el.replaceChildren(...(message ? [message, action || ''] : []));
    el.hidden = !message;
  }

  // ---- drawing

  drawList() {
    renderConversationList(this.els.conversations, this.conversations, this.current && this.current.id, this.query, {
      open: id => this.open(id),
      remove: id => this.removeConversation(id),
    });
  }

  drawModels() {
    renderModelPicker(this.els.model, this.els.modelFacts, this.models, this.current.model);
    const current = this.model();
    this.composer.setVision(this.current.model, !current || canSee(current), this.models.filter(canSee).map(m => m.id));
  }

  drawConversation() {
    document.title = this.current.messages.length ? `${this.current.title} · rkllm-server` : 'rkllm-server chat';
    const busyIndex = this.busy && this.busy.conversation === this.current ? this.busy.index : -1;
    const none = this.modelsLoaded && this.models.length === 0;
    this.view.show(this.current, busyIndex, welcome(this.model(), none ? () => this.hooks.openDownload() : null));
  }

  drawAll() {
    this.drawList();
    this.drawModels();
    this.drawConversation();
    this.composer.setBusy(!!this.busy);
  }

  // ---- conversations

  async open(id) {
    const found = this.conversations.find(c => c.id === id);
    if (found) {
      await this.store.pictures(found); // read when the conversation opens, not with the list
      this.current = found;
      this.hooks.conversationOpened();
      this.drawAll();
    }
  }

  newChat() {
    if (this.current.messages.length > 0) {
      this.current = newConversation(defaultModel(this.models, this.current.model));
    }
    this.drawAll();
  }

  search(query) {
    this.query = query;
    this.drawList();
  }

  selectModel(id) {
    this.current.model = id;
    if (this.current.messages.length) this.save(this.current);
    this.drawModels();
    if (this.current.messages.length === 0) this.drawConversation();
  }

  async save(conversation) {
    conversation.updated = Date.now();
    if (!this.conversations.includes(conversation)) this.conversations.unshift(conversation);
    this.conversations.sort((a, b) => b.updated - a.updated);
    try {
      await this.store.put(conversation);
    } catch (e) {
      this.banner(`This conversation could not be saved in the browser: ${e.message || e}`);
    }
  }

  async removeConversation(id) {
    const conversation = this.conversations.find(c => c.id === id);
    if (!conversation || !confirm(`Delete "${conversation.title}"?`)) return;
    if (this.busy && this.busy.conversation === conversation) this.busy.controller.abort();
    this.conversations = this.conversations.filter(c => c !== conversation);
    await this.store.remove(id);
    if (this.current === conversation) {
      this.current = this.conversations[0] || newConversation(defaultModel(this.models, conversation.model));
      await this.store.pictures(this.current);
    }
    this.drawAll();
  }

  /** Adds the conversations of an exported file; one with the same id is replaced. */
  async import(data) {
    for (const conversation of importable(data)) {
      this.conversations = this.conversations.filter(c => c.id !== conversation.id);
      this.conversations.push(conversation);
      await this.store.remove(conversation.id); // its pictures too: the file's may differ from the ones kept
      await this.store.put(conversation);
    }
    this.conversations.sort((a, b) => b.updated - a.updated);
    this.drawList();
  }

  // ---- the model list

  async refreshModels() {
    try {
      const models = chatModels(await this.api.models());
      this.modelsLoaded = true;
      this.banner(null);
      if (JSON.stringify(models) === JSON.stringify(this.models) && this.current.model) {
        return; // nothing new: an open model list stays open
      }
      this.models = models;
      const known = this.models.some(m => m.id === this.current.model);
      if (!this.current.model || (this.current.messages.length === 0 && !known)) {
        this.current.model = defaultModel(this.models, this.current.model);
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        this.keyBanner();
      } else {
        this.banner(`The model list could not be loaded: ${e.message || e}`);
      }
    }
    this.drawModels();
    if (this.current.messages.length === 0 && !this.busy) this.drawConversation();
  }

  /** The server refused the page's API key, or needs one: the banner with the way to the settings. */
  keyBanner() {
    this.banner(this.settings.apiKey ? 'The server did not accept the API key.' : 'This server needs an API key.',
      h('button', {type: 'button', class: 'button', text: 'Settings', onclick: () => this.hooks.openSettings()}));
  }

  /** A model was downloaded (its id, when it is new): the list again, and the new model for an empty chat. */
  async downloaded(id) {
    await this.refreshModels();
    if (id && this.models.some(m => m.id === id)) {
      if (this.current.messages.length > 0) this.current = newConversation(id);
      this.selectModel(id);
      this.drawAll();
    }
  }

  // ---- answers

  async send(text, images) {
    if (!this.current.model) {
      this.banner('There is no chat model to answer yet: download one first.',
        h('button', {type: 'button', class: 'button', text: 'Download a model', onclick: () => this.hooks.openDownload()}));
      return;
    }
    const conversation = this.current;
    if (conversation.messages.length === 0) conversation.title = titleOf(text);
    conversation.messages.push(userMessage(text, images), assistantMessage(conversation.model));
    this.composer.clear();
    await this.answer(conversation, conversation.messages.length - 1);
  }

  async edit(index, text) {
    const conversation = this.current;
    if (this.busy || !text.trim()) return;
    conversation.messages[index].text = text.trim();
    conversation.messages.splice(index + 1);
    if (index === 0) conversation.title = titleOf(text);
    conversation.messages.push(assistantMessage(conversation.model));
    await this.answer(conversation, conversation.messages.length - 1);
  }

  async regenerate(index) {
    const conversation = this.current;
    if (this.busy) return;
    conversation.messages.splice(index);
    conversation.messages.push(assistantMessage(conversation.model));
    await this.answer(conversation, conversation.messages.length - 1);
  }

  /** Deletes a message; a question takes the answers to it along. */
  async removeMessage(index) {
    const conversation = this.current;
    const messages = conversation.messages;
    if (this.busy) return;
    let count = 1;
    if (messages[index].role === 'user') {
      while (index + count < messages.length && messages[index + count].role === 'assistant') count++;
    }
    messages.splice(index, count);
    await this.save(conversation);
    this.drawAll();
  }

  stop() {
    if (this.busy) this.busy.controller.abort();
  }

  /**
   * Streams the answer at `index` of the conversation. The page is busy from the first line on, before anything
   * is awaited, so that a second Enter cannot send twice.
   */
  async answer(conversation, index) {
    const model = this.models.find(m => m.id === conversation.model) || {id: conversation.model, capabilities: {}};
    const controller = new AbortController();
    this.busy = {conversation, index, controller};
    this.composer.setBusy(true);
    this.drawConversation();
    await this.save(conversation);
    this.drawList();
    let frame = 0;
    let lastSave = Date.now();
    await generate({
      api: this.api,
      conversation,
      index,
      model,
      settings: this.settings,
      signal: controller.signal,
      changed: () => {
        // one redraw per frame however fast the pieces come; a save now and then, for a reload mid-answer
        if (!frame) {
          frame = requestAnimationFrame(() => {
            frame = 0;
            if (this.current === conversation) this.view.update(index);
          });
        }
        if (Date.now() - lastSave > SAVE_WHILE_STREAMING_MS) {
          lastSave = Date.now();
          this.store.put(conversation).catch(() => {});
        }
      },
    });
    if (frame) cancelAnimationFrame(frame);
    const error = conversation.messages[index].error;
    this.busy = null;
    await this.save(conversation);
    this.composer.setBusy(false);
    if (this.current === conversation) this.drawConversation();
    this.drawList();
    const refreshed = this.refreshModels();
    // the model list may be public while chats need a key: the way to give one, as for the list (after the list's
    // own answer, which clears the banner)
    if (error && error.status === 401) refreshed.then(() => this.keyBanner());
  }
}

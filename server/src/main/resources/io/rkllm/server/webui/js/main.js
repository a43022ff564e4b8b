// The chat page: wires the conversation store, the model list, the views and the generation together.

import {Api, ApiError} from './api.js';
import {generate} from './chat.js';
import {Composer} from './composer.js';
import {assistantMessage, importable, newConversation, titleOf, userMessage} from './conversation.js';
import {decorateIcons, h} from './dom.js';
import {MessagesView, welcome} from './messages.js';
import {canSee, chatModels, defaultModel, renderModelPicker} from './models.js';
import {bindSettingsDialog, loadSettings, saveSettings} from './settings.js';
import {downloadJson, renderConversationList} from './sidebar.js';
import {openStore} from './store.js';
import {applyTheme, nextTheme, themeLabel} from './theme.js';

const MODEL_REFRESH_MS = 15000;
const SAVE_WHILE_STREAMING_MS = 2000;

const $ = id => document.getElementById(id);

const state = {
  settings: loadSettings(),
  store: null,
  api: null,
  models: [],
  conversations: [],
  current: null,
  busy: null,
  query: '',
};

let view;
let composer;
let openSettings;

function model() {
  return state.models.find(m => m.id === state.current.model) || null;
}

function banner(message, action) {
  const el = $('banner');
  if (!message) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.replaceChildren(message, action || '');
  el.hidden = false;
}

// ---- drawing

function drawList() {
  renderConversationList($('conversations'), state.conversations, state.current && state.current.id, state.query, {
    open: id => {
      const found = state.conversations.find(c => c.id === id);
      if (found) {
        state.current = found;
        closeDrawer();
        drawAll();
      }
    },
    remove: removeConversation,
  });
}

function drawModels() {
  renderModelPicker($('model'), $('model-facts'), state.models, state.current.model);
  const current = model();
  composer.setVision(state.current.model, !current || canSee(current),
    state.models.filter(canSee).map(m => m.id));
}

function drawConversation() {
  document.title = state.current.messages.length ? `${state.current.title} · rkllm-server` : 'rkllm-server chat';
  const busyIndex = state.busy && state.busy.conversation === state.current ? state.busy.index : -1;
  view.show(state.current, busyIndex, welcome(model()));
}

function drawAll() {
  drawList();
  drawModels();
  drawConversation();
  composer.setBusy(!!state.busy);
}

// ---- storage

async function save(conversation) {
  conversation.updated = Date.now();
  if (!state.conversations.includes(conversation)) state.conversations.unshift(conversation);
  state.conversations.sort((a, b) => b.updated - a.updated);
  try {
    await state.store.put(conversation);
  } catch (e) {
    banner(`This conversation could not be saved in the browser: ${e.message || e}`);
  }
}

async function removeConversation(id) {
  const conversation = state.conversations.find(c => c.id === id);
  if (!conversation || !confirm(`Delete "${conversation.title}"?`)) return;
  if (state.busy && state.busy.conversation === conversation) state.busy.controller.abort();
  state.conversations = state.conversations.filter(c => c !== conversation);
  await state.store.remove(id);
  if (state.current === conversation) {
    state.current = state.conversations[0] || newConversation(defaultModel(state.models, conversation.model));
  }
  drawAll();
}

// ---- the model list

async function refreshModels() {
  try {
    const models = chatModels(await state.api.models());
    banner(null);
    if (JSON.stringify(models) === JSON.stringify(state.models) && state.current.model) {
      return; // nothing new: an open model list stays open
    }
    state.models = models;
    const known = state.models.some(m => m.id === state.current.model);
    if (!state.current.model || (state.current.messages.length === 0 && !known)) {
      state.current.model = defaultModel(state.models, state.current.model);
    }
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      banner(state.settings.apiKey ? 'The server did not accept the API key.' : 'This server needs an API key.',
        h('button', {type: 'button', class: 'button', text: 'Settings', onclick: () => openSettings()}));
    } else {
      banner(`The model list could not be loaded: ${e.message || e}`);
    }
  }
  drawModels();
  if (state.current.messages.length === 0 && !state.busy) drawConversation();
}

// ---- answers

/**
 * Streams the answer at `index` of the conversation. The page is busy from the first line on, before anything
 * is awaited, so that a second Enter cannot send twice.
 */
async function answer(conversation, index) {
  const current = state.models.find(m => m.id === conversation.model) || {id: conversation.model, capabilities: {}};
  const controller = new AbortController();
  state.busy = {conversation, index, controller};
  composer.setBusy(true);
  drawConversation();
  await save(conversation);
  drawList();
  let frame = 0;
  let lastSave = Date.now();
  await generate({
    api: state.api,
    conversation,
    index,
    model: current,
    settings: state.settings,
    signal: controller.signal,
    changed: () => {
      if (!frame) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          if (state.current === conversation) view.update(index);
        });
      }
      if (Date.now() - lastSave > SAVE_WHILE_STREAMING_MS) {
        lastSave = Date.now();
        state.store.put(conversation).catch(() => {});
      }
    },
  });
  if (frame) cancelAnimationFrame(frame);
  state.busy = null;
  await save(conversation);
  composer.setBusy(false);
  if (state.current === conversation) {
    drawConversation();
  }
  drawList();
  refreshModels();
}

async function send(text, images) {
  if (!state.current.model) {
    banner('There is no chat model to answer: see the model list above.');
    return;
  }
  const conversation = state.current;
  if (conversation.messages.length === 0) conversation.title = titleOf(text);
  conversation.messages.push(userMessage(text, images), assistantMessage(conversation.model));
  composer.clear();
  await answer(conversation, conversation.messages.length - 1);
}

async function edit(index, text) {
  const conversation = state.current;
  if (state.busy || !text.trim()) return;
  conversation.messages[index].text = text.trim();
  conversation.messages.splice(index + 1);
  if (index === 0) conversation.title = titleOf(text);
  conversation.messages.push(assistantMessage(conversation.model));
  await answer(conversation, conversation.messages.length - 1);
}

async function regenerate(index) {
  const conversation = state.current;
  if (state.busy) return;
  conversation.messages.splice(index);
  conversation.messages.push(assistantMessage(conversation.model));
  await answer(conversation, conversation.messages.length - 1);
}

async function removeMessage(index) {
  const conversation = state.current;
  if (state.busy) return;
  let count = 1;
  if (conversation.messages[index].role === 'user') {
    // the message and the answers to it
    while (index + count < conversation.messages.length && conversation.messages[index + count].role === 'assistant') {
      count++;
    }
  }
  conversation.messages.splice(index, count);
  await save(conversation);
  drawAll();
}

// ---- the rest of the page

function closeDrawer() {
  $('app').classList.remove('drawer-open');
  $('scrim').hidden = true;
  $('menu').setAttribute('aria-expanded', 'false');
}

function bindPage() {
  $('new-chat').addEventListener('click', () => {
    if (state.current.messages.length > 0) {
      state.current = newConversation(defaultModel(state.models, state.current.model));
    }
    closeDrawer();
    drawAll();
    composer.focus();
  });
  $('search').addEventListener('input', e => {
    state.query = e.target.value;
    drawList();
  });
  $('model').addEventListener('change', e => {
    state.current.model = e.target.value;
    if (state.current.messages.length) save(state.current);
    drawModels();
    if (state.current.messages.length === 0) drawConversation();
  });
  $('menu').addEventListener('click', () => {
    const open = !$('app').classList.contains('drawer-open');
    $('app').classList.toggle('drawer-open', open);
    $('scrim').hidden = !open;
    $('menu').setAttribute('aria-expanded', String(open));
  });
  $('scrim').addEventListener('click', closeDrawer);
  $('theme').addEventListener('click', () => {
    state.settings = {...state.settings, theme: nextTheme(state.settings.theme)};
    saveSettings(state.settings);
    applyTheme(state.settings.theme);
    $('theme').title = themeLabel(state.settings.theme);
  });
  $('theme').title = themeLabel(state.settings.theme);
  $('export').addEventListener('click', () => {
    const day = new Date().toISOString().slice(0, 10);
    downloadJson(`rkllm-chats-${day}.json`, {format: 'rkllm-webui', version: 1, exported: new Date().toISOString(),
      conversations: state.conversations});
  });
  $('import').addEventListener('click', () => $('import-file').click());
  $('import-file').addEventListener('change', async e => {
    const file = e.target.files[0];
    e.target.value = '';
    if (!file) return;
    try {
      const list = importable(JSON.parse(await file.text()));
      for (const conversation of list) {
        state.conversations = state.conversations.filter(c => c.id !== conversation.id);
        state.conversations.push(conversation);
        await state.store.put(conversation);
      }
      state.conversations.sort((a, b) => b.updated - a.updated);
      banner(null);
      drawList();
    } catch (err) {
      banner(`${file.name} could not be imported: ${err.message || err}`);
    }
  });
  openSettings = bindSettingsDialog($('settings'), $('settings-form'), () => state.settings, settings => {
    state.settings = settings;
    saveSettings(settings);
    applyTheme(settings.theme);
    $('theme').title = themeLabel(settings.theme);
    refreshModels();
  });
  $('open-settings').addEventListener('click', () => openSettings());
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !state.busy) refreshModels();
  });
  setInterval(() => {
    if (!document.hidden && !state.busy) refreshModels();
  }, MODEL_REFRESH_MS);
}

async function boot() {
  applyTheme(state.settings.theme);
  decorateIcons(document);
  view = new MessagesView($('messages'), {edit, regenerate, remove: removeMessage});
  composer = new Composer({
    form: $('composer'), input: $('input'), send: $('send'), stop: $('stop'), attach: $('attach'),
    file: $('attach-file'), attachments: $('attachments'), note: $('composer-note'),
  }, {submit: send, stop: () => state.busy && state.busy.controller.abort()});
  state.api = new Api(() => state.settings.apiKey);
  state.store = await openStore();
  if (!state.store.persistent) {
    $('storage-note').textContent = `Conversations are kept for this visit only: ${state.store.reason}.`;
  }
  state.conversations = await state.store.all();
  state.current = state.conversations[0] || newConversation('');
  bindPage();
  drawAll();
  document.documentElement.classList.add('booted');
  await refreshModels();
  composer.focus();
}

window.addEventListener('error', e => banner(`Something went wrong on this page: ${e.message}`));
window.addEventListener('unhandledrejection', e => {
  const reason = e.reason;
  banner(`Something went wrong on this page: ${reason && reason.message ? reason.message : reason}`);
});

boot().catch(e => {
  const note = $('boot');
  note.classList.add('failed');
  note.textContent = `The chat page could not start: ${e && e.message ? e.message : e}. The API still answers at /v1.`;
});

// The chat page's start: builds the views and the app, and binds the page's controls to them.

import {Api} from './api.js';
import {ChatApp} from './app.js';
import {Composer} from './composer.js';
import {decorateIcons} from './dom.js';
import {bindDownloadDialog} from './downloads.js';
import {MessagesView} from './messages.js';
import {bindSettingsDialog, loadSettings, saveSettings} from './settings.js';
import {downloadJson} from './sidebar.js';
import {openStore} from './store.js';
import {applyTheme, nextTheme, themeLabel} from './theme.js';

const MODEL_REFRESH_MS = 15000;

const $ = id => document.getElementById(id);

function setDrawer(open) {
  $('app').classList.toggle('drawer-open', open);
  $('scrim').hidden = !open;
  $('menu').setAttribute('aria-expanded', String(open));
}

function showTheme(theme) {
  applyTheme(theme);
  $('theme').title = themeLabel(theme);
}

function bindPage(app) {
  $('new-chat').addEventListener('click', () => {
    app.newChat();
    setDrawer(false);
    app.composer.focus();
  });
  $('search').addEventListener('input', e => app.search(e.target.value));
  $('model').addEventListener('change', e => app.selectModel(e.target.value));
  $('menu').addEventListener('click', () => setDrawer(!$('app').classList.contains('drawer-open')));
  $('scrim').addEventListener('click', () => setDrawer(false));
  $('theme').addEventListener('click', () => {
    app.settings = {...app.settings, theme: nextTheme(app.settings.theme)};
    saveSettings(app.settings);
    showTheme(app.settings.theme);
  });
  $('export').addEventListener('click', async () => {
    for (const conversation of app.conversations) await app.store.pictures(conversation);
    const now = new Date().toISOString();
    downloadJson(`rkllm-chats-${now.slice(0, 10)}.json`, {format: 'rkllm-webui', version: 1, exported: now,
      conversations: app.conversations});
  });
  $('import').addEventListener('click', () => $('import-file').click());
  $('import-file').addEventListener('change', async e => {
    const file = e.target.files[0];
    e.target.value = '';
    if (!file) return;
    try {
      await app.import(JSON.parse(await file.text()));
      app.banner(null);
    } catch (err) {
      app.banner(`${file.name} could not be imported: ${err.message || err}`);
    }
  });
  $('open-settings').addEventListener('click', () => app.hooks.openSettings());
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !app.busy) app.refreshModels();
  });
  setInterval(() => {
    if (!document.hidden && !app.busy) app.refreshModels();
  }, MODEL_REFRESH_MS);
}

async function boot() {
  const settings = loadSettings();
  showTheme(settings.theme);
  decorateIcons(document);
  const hooks = {conversationOpened: () => setDrawer(false), openSettings: () => {}, openDownload: () => {}};
  let app = null;
  const view = new MessagesView($('messages'), {
    edit: (index, text) => app.edit(index, text),
    regenerate: index => app.regenerate(index),
    remove: index => app.removeMessage(index),
  });
  const composer = new Composer({
    form: $('composer'), input: $('input'), send: $('send'), stop: $('stop'), attach: $('attach'),
    file: $('attach-file'), attachments: $('attachments'), note: $('composer-note'),
  }, {submit: (text, images) => app.send(text, images), stop: () => app.stop()});
  const store = await openStore();
  if (!store.persistent) {
    $('storage-note').textContent = `Conversations are kept for this visit only: ${store.reason}.`;
  }
  app = new ChatApp({
    settings,
    store,
    api: new Api(() => app.settings.apiKey),
    els: {banner: $('banner'), conversations: $('conversations'), model: $('model'), modelFacts: $('model-facts')},
    view,
    composer,
    hooks,
  });
  hooks.openSettings = bindSettingsDialog($('settings'), $('settings-form'), () => app.settings, edited => {
    app.settings = edited;
    saveSettings(edited);
    showTheme(edited.theme);
    app.refreshModels();
  });
  hooks.openDownload = bindDownloadDialog($('download'), {
    form: $('download-form'), progress: $('download-progress'), bar: $('download-bar'), status: $('download-status'),
    error: $('download-error'), start: $('download-start'), cancel: $('download-cancel'), close: $('download-close'),
  }, app.api, app);
  $('open-download').addEventListener('click', () => hooks.openDownload());
  window.addEventListener('error', e => app.banner(`Something went wrong on this page: ${e.message}`));
  window.addEventListener('unhandledrejection', e => {
    const reason = e.reason;
    app.banner(`Something went wrong on this page: ${reason && reason.message ? reason.message : reason}`);
  });
  await app.load();
  bindPage(app);
  app.drawAll();
  document.documentElement.classList.add('booted');
  await app.refreshModels();
  composer.focus();
}

boot().catch(e => {
  const note = $('boot');
  note.classList.add('failed');
  note.textContent = `The chat page could not start: ${e && e.message ? e.message : e}. The API still answers at /v1.`;
});

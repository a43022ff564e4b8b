// The download dialog: a model by its Ollama name or from the Hugging Face Hub into the server's models directory
// through Ollama's POST /api/pull, with its progress (percent, size, speed, time left), a cancel, and the server's own error when it
// refuses (an unknown repository or quantisation, a gated one, a full disk, a server that does not allow it).

import {ApiError} from './api.js';

/**
 * What the server pulls: OWNER/REPO with the quantisation as its tag, unless the name already has a tag or a file;
 * an Ollama library name (no owner: qwen3, qwen3:4b) as it is, its tag choosing the quantisation.
 */
export function modelName(repo, quant) {
  const name = repo.trim().replace(/^https?:\/\/(huggingface\.co|hf\.co)\//i, '');
  const tag = quant.trim();
  const bare = name.replace(/^(hf\.co|huggingface\.co)\//i, '');
  if (!tag || bare.includes(':') || !bare.includes('/') || bare.split('/').length > 2) return name;
  return `${name}:${tag}`;
}

/** Byte counts as the Hub shows them (powers of 1000). */
export function bytes(n) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${v} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

function duration(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s % 3600 / 60)).padStart(2, '0')}m`;
}

const STEPS = {
  'pulling manifest': 'Looking up the model…',
  'verifying sha256 digest': 'Checking the digest the Hub publishes…',
  'writing manifest': 'Installing…',
};

/** The progress of one pull, from its lines: every file's bytes added up, the speed since the start. */
export class PullProgress {
  constructor(now = () => performance.now()) {
    this.now = now;
    this.files = new Map();
    this.started = now();
    this.startBytes = null;
  }

  /** Takes one line; returns {fraction, text} for the dialog, or null when the line changes nothing shown. */
  add(line) {
    if (line.status && STEPS[line.status]) return {fraction: this.fraction(), text: STEPS[line.status]};
    // a transfer that stopped and is asked again: "pulling <digest>: stopped at 45% (why); trying again in 4 s"
    const stopped = !line.digest && /^pulling [0-9a-f]+: (stopped .*)$/.exec(line.status || '');
    if (stopped) return {fraction: this.fraction(), text: stopped[1][0].toUpperCase() + stopped[1].slice(1)};
    if (!line.digest || !line.total) return null;
    this.files.set(line.digest, {total: line.total, completed: line.completed || 0});
    const total = [...this.files.values()].reduce((a, f) => a + f.total, 0);
    const completed = [...this.files.values()].reduce((a, f) => a + f.completed, 0);
    if (this.startBytes === null) {
      this.startBytes = completed; // a resumed download: its first bytes were already there
      this.started = this.now();
    }
    const seconds = (this.now() - this.started) / 1000;
    const rate = seconds > 0 ? (completed - this.startBytes) / seconds : 0;
    let text = `${Math.floor(this.fraction() * 100)}% of ${bytes(total)}`;
    if (rate > 0) {
      text += `, ${bytes(Math.round(rate))}/s`;
      if (completed < total) text += `, ${duration((total - completed) / rate)} left`;
    }
    return {fraction: this.fraction(), text};
  }

  fraction() {
    const total = [...this.files.values()].reduce((a, f) => a + f.total, 0);
    const completed = [...this.files.values()].reduce((a, f) => a + f.completed, 0);
    return total ? completed / total : 0;
  }
}

/**
 * Binds the dialog. `app` gives the model ids before and after (api.models) and selects the new model; returns the
 * function that opens the dialog.
 */
export function bindDownloadDialog(dialog, els, api, app) {
  const form = els.form;
  let controller = null;

  function busy(on) {
    els.start.hidden = on;
    els.close.hidden = on;
    els.cancel.hidden = !on;
    form.elements.repo.disabled = on;
    form.elements.quant.disabled = on;
  }

  function show(fraction, text) {
    els.progress.hidden = false;
    els.bar.value = fraction;
    els.status.textContent = text;
  }

  function fail(message) {
    els.error.textContent = message;
    els.error.hidden = false;
  }

  async function start() {
    const name = modelName(form.elements.repo.value, form.elements.quant.value);
    if (!name) return;
    els.error.hidden = true;
    show(0, `Downloading ${name}…`);
    busy(true);
    controller = new AbortController();
    const progress = new PullProgress();
    try {
      const before = new Set((await api.models()).map(m => m.id));
      let done = false;
      for await (const line of api.pull(name, controller.signal)) {
        if (line.error) throw new ApiError(0, null, line.error);
        if (line.status === 'success') {
          done = true;
          break;
        }
        const shown = progress.add(line);
        if (shown) show(shown.fraction, shown.text);
      }
      if (!done) throw new ApiError(0, null, 'the server ended the download without saying it succeeded');
      const added = (await api.models()).map(m => m.id).filter(id => !before.has(id));
      await app.downloaded(added[0] || null);
      show(1, added.length ? `Downloaded: ${added[0]}, selected above.` : `Downloaded: ${name} was already here.`);
    } catch (e) {
      if (e.name === 'AbortError') {
        show(els.bar.value, 'Cancelled. What was downloaded is kept: downloading the same model again resumes it.');
      } else {
        els.progress.hidden = true;
        fail(e.message || String(e));
      }
    } finally {
      controller = null;
      busy(false);
    }
  }

  form.addEventListener('submit', e => {
    if (e.submitter && e.submitter.value === 'download') {
      e.preventDefault();
      start();
    }
  });
  els.cancel.addEventListener('click', () => {
    if (controller) controller.abort();
  });
  dialog.addEventListener('cancel', e => {
    if (controller) e.preventDefault(); // Esc does not leave a download running unseen: Cancel stops it
  });
  return function open() {
    if (!controller) {
      els.error.hidden = true;
      els.progress.hidden = true;
    }
    dialog.showModal();
    form.elements.repo.focus();
  };
}

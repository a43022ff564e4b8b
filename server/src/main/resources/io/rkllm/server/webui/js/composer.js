// The message box: Enter sends, Shift+Enter starts a new line; pictures by the button, pasting or dropping, for
// models that can see them; the send button becomes a stop button while an answer streams.

import {h, icon} from './dom.js';
import {readPicture} from './images.js';

export class Composer {
  /** els: {form, input, send, stop, attach, file, attachments, note}; on: {submit(text, images), stop()} */
  constructor(els, on) {
    this.els = els;
    this.on = on;
    this.images = [];
    this.busy = false;
    this.vision = {model: null, canSee: true, seeing: []};
    els.form.addEventListener('submit', e => {
      e.preventDefault();
      this.submit();
    });
    els.input.addEventListener('keydown', e => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        this.submit();
      } else if (e.key === 'Escape' && this.busy) {
        this.on.stop();
      }
    });
    els.input.addEventListener('input', () => this.fit());
    els.input.addEventListener('paste', e => {
      const files = [...(e.clipboardData ? e.clipboardData.files : [])].filter(f => f.type.startsWith('image/'));
      if (files.length) {
        // a copied picture often comes with text (its name, or the page it was copied from): keep the text
        if (!e.clipboardData.getData('text/plain')) e.preventDefault();
        this.add(files);
      }
    });
    els.form.addEventListener('dragover', e => e.preventDefault());
    els.form.addEventListener('drop', e => {
      const files = [...(e.dataTransfer ? e.dataTransfer.files : [])].filter(f => f.type.startsWith('image/'));
      if (files.length) {
        e.preventDefault();
        this.add(files);
      }
    });
    els.attach.addEventListener('click', () => {
      if (!this.vision.canSee) {
        this.note(this.cannotSee());
        return;
      }
      els.file.click();
    });
    els.file.addEventListener('change', () => {
      this.add([...els.file.files]);
      els.file.value = '';
    });
    els.stop.addEventListener('click', () => this.on.stop());
  }

  submit() {
    if (this.busy) return;
    const text = this.els.input.value.trim();
    if (!text && this.images.length === 0) return;
    if (this.images.length && !this.vision.canSee) {
      this.note(this.cannotSee());
      return;
    }
    this.on.submit(text, this.images.slice());
  }

  clear() {
    this.els.input.value = '';
    this.images = [];
    this.renderImages();
    this.fit();
    this.note('');
  }

  focus() {
    this.els.input.focus();
  }

  setBusy(busy) {
    this.busy = busy;
    this.els.send.hidden = busy;
    this.els.stop.hidden = !busy;
  }

  /** model: the conversation's model; seeing: ids of the models that can see pictures. */
  setVision(model, canSee, seeing) {
    this.vision = {model, canSee, seeing};
    this.els.attach.title = canSee ? 'Attach a picture (or paste one)' : this.cannotSee();
    this.els.attach.classList.toggle('unavailable', !canSee);
    this.note(this.images.length && !canSee ? this.cannotSee() : '');
  }

  cannotSee() {
    const others = this.vision.seeing.length ? ` Models that can: ${this.vision.seeing.join(', ')}.` : '';
    return `${this.vision.model || 'This model'} cannot see pictures.${others}`;
  }

  note(text) {
    this.els.note.textContent = text;
    this.els.note.hidden = !text;
  }

  async add(files) {
    if (!this.vision.canSee) {
      this.note(this.cannotSee());
      return;
    }
    for (const file of files) {
      try {
        this.images.push(await readPicture(file));
      } catch (e) {
        this.note(e.message);
      }
    }
    this.renderImages();
  }

  renderImages() {
    this.els.attachments.replaceChildren(...this.images.map((image, i) => h('div', {class: 'attachment'},
      h('img', {src: image.dataUrl, alt: image.name}),
      h('button', {type: 'button', 'aria-label': `Remove ${image.name}`, title: 'Remove', onclick: () => {
        this.images.splice(i, 1);
        this.renderImages();
        this.note('');
      }}, icon('close')))));
  }

  fit() {
    const input = this.els.input;
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight}px`;
  }
}

// The model picker: chat models only (embedding models answer no chat), each with what it can do and whether it
// is loaded now.

import {h} from './dom.js';

export function chatModels(models) {
  return models.filter(m => !(m.capabilities && m.capabilities.embedding));
}

export function canSee(model) {
  return !!(model && model.capabilities && model.capabilities.vision);
}

function abilities(model) {
  const c = model.capabilities || {};
  return [c.thinking && 'thinking', c.tools && 'tools', c.vision && 'vision'].filter(Boolean);
}

export function renderModelPicker(select, facts, models, selectedId) {
  const options = models.map(m => {
    const extra = [...abilities(m), m.loaded ? 'loaded' : null].filter(Boolean).join(', ');
    return h('option', {value: m.id, selected: m.id === selectedId}, extra ? `${m.id} (${extra})` : m.id);
  });
  if (selectedId && !models.some(m => m.id === selectedId)) {
    options.unshift(h('option', {value: selectedId, selected: true}, `${selectedId} (not on this server)`));
  }
  select.replaceChildren(...options);
  select.disabled = options.length === 0;
  const model = models.find(m => m.id === selectedId);
  if (!model) {
    facts.replaceChildren();
    return;
  }
  facts.replaceChildren(...[
    ...abilities(model).map(a => h('span', {class: 'chip', text: a})),
    h('span', {class: model.loaded ? 'chip loaded' : 'chip',
      title: model.loaded ? 'in memory: answers start at once' : 'loads on its first message',
      text: model.loaded ? 'loaded' : 'not loaded'}),
    model.context_length ? h('span', {class: 'chip', text: `${model.context_length} tokens context`}) : null,
  ].filter(Boolean));
}

/** The model a new conversation starts with: a loaded chat model, else the first. */
export function defaultModel(models, preferred) {
  if (preferred && models.some(m => m.id === preferred)) return preferred;
  const loaded = models.find(m => m.loaded);
  return (loaded || models[0] || {}).id || '';
}

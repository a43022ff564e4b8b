// The page's settings, kept in this browser's local storage (the API key too: it never leaves the browser except
// in the requests to this server).

const KEY = 'rkllm.webui.settings';

export const DEFAULTS = Object.freeze({
  systemPrompt: '',
  temperature: '',
  maxTokens: '',
  thinking: true,
  apiKey: '',
  theme: 'auto',
});

export function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || '{}');
    return {...DEFAULTS, ...(saved && typeof saved === 'object' ? saved : {})};
  } catch {
    return {...DEFAULTS};
  }
}

export function saveSettings(settings) {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
    return true;
  } catch {
    return false; // storage disabled or full: the settings hold for this visit only
  }
}

/** The sampling fields of a chat request; empty settings leave the server's and model's defaults. */
export function samplingFields(settings) {
  const fields = {};
  const temperature = Number.parseFloat(settings.temperature);
  if (Number.isFinite(temperature)) fields.temperature = temperature;
  const maxTokens = Number.parseInt(settings.maxTokens, 10);
  if (Number.isFinite(maxTokens) && maxTokens > 0) fields.max_tokens = maxTokens;
  return fields;
}

/** The settings dialog: fills the form from the settings and hands back the edited copy on Save. */
export function bindSettingsDialog(dialog, form, current, onSave) {
  dialog.addEventListener('close', () => {
    if (dialog.returnValue !== 'save') return;
    const data = new FormData(form);
    onSave({
      ...current(),
      systemPrompt: String(data.get('systemPrompt') || ''),
      temperature: String(data.get('temperature') || ''),
      maxTokens: String(data.get('maxTokens') || ''),
      thinking: data.get('thinking') === 'on',
      apiKey: String(data.get('apiKey') || '').trim(),
      theme: String(data.get('theme') || 'auto'),
    });
  });
  return function open() {
    const s = current();
    form.elements.systemPrompt.value = s.systemPrompt;
    form.elements.temperature.value = s.temperature;
    form.elements.maxTokens.value = s.maxTokens;
    form.elements.thinking.checked = !!s.thinking;
    form.elements.apiKey.value = s.apiKey;
    form.elements.theme.value = s.theme;
    dialog.returnValue = '';
    dialog.showModal();
  };
}

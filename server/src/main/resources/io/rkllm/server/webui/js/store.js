// Conversations in this browser's IndexedDB (pictures included, which local storage could not hold), one record
// per conversation. Where IndexedDB is unavailable (some private windows) they live in memory for the visit,
// and the page says so.

const DB_NAME = 'rkllm-webui';
const STORE = 'conversations';

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

class IndexedDbStore {
  constructor(db) {
    this.db = db;
    this.persistent = true;
  }

  store(mode) {
    return this.db.transaction(STORE, mode).objectStore(STORE);
  }

  async all() {
    const list = await request(this.store('readonly').getAll());
    return list.sort((a, b) => b.updated - a.updated);
  }

  put(conversation) {
    // a structured clone of plain data: the caller's object stays its own
    return request(this.store('readwrite').put(conversation));
  }

  remove(id) {
    return request(this.store('readwrite').delete(id));
  }
}

class MemoryStore {
  constructor(reason) {
    this.items = new Map();
    this.persistent = false;
    this.reason = reason;
  }

  async all() {
    return [...this.items.values()].map(c => structuredClone(c)).sort((a, b) => b.updated - a.updated);
  }

  async put(conversation) {
    this.items.set(conversation.id, structuredClone(conversation));
  }

  async remove(id) {
    this.items.delete(id);
  }
}

export async function openStore() {
  if (!('indexedDB' in window)) {
    return new MemoryStore('this browser has no IndexedDB');
  }
  try {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(STORE)) {
        open.result.createObjectStore(STORE, {keyPath: 'id'});
      }
    };
    return new IndexedDbStore(await request(open));
  } catch (e) {
    return new MemoryStore(`IndexedDB is not available (${e && e.message ? e.message : e})`);
  }
}

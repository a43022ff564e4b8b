// Conversations in this browser's IndexedDB (pictures included, which local storage could not hold), one record
// per conversation. Where IndexedDB is unavailable (some private windows) they live in memory for the visit,
// and the page says so.
//
// Pictures have their own object store, written once: a conversation's record names its pictures by key, so that
// saving it (every few seconds while an answer streams) writes its text, not megabytes of pictures again.
// Records of version 1 hold their pictures inline; they are read as they are and move out at their next save.

const DB_NAME = 'rkllm-webui';
const STORE = 'conversations';
const PICTURES = 'pictures';

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('the save was aborted'));
  });
}

function pictureKey(conversation, message, index) {
  return `${conversation.id}/${message.id}/${index}`;
}

class IndexedDbStore {
  constructor(db) {
    this.db = db;
    this.persistent = true;
    // the picture keys written (or read) in this visit: a picture is never written twice
    this.written = new Set();
  }

  /**
   * Every conversation, without its pictures' data (their keys only): a browser that kept many pictures would read
   * them all at every visit. {@link pictures} reads a conversation's when it is opened.
   */
  async all() {
    const transaction = this.db.transaction([STORE, PICTURES], 'readonly');
    const [list, keys] = await Promise.all([request(transaction.objectStore(STORE).getAll()),
      request(transaction.objectStore(PICTURES).getAllKeys())]);
    for (const key of keys) this.written.add(key);
    return list.sort((a, b) => b.updated - a.updated);
  }

  /** Reads the data of a conversation's pictures not read yet (those the record names by key). */
  async pictures(conversation) {
    const waiting = (conversation.messages || []).some(m => (m.images || []).some(i => i.key && !i.dataUrl));
    if (!waiting) return conversation;
    const range = IDBKeyRange.bound(`${conversation.id}/`, `${conversation.id}0`, false, true);
    const transaction = this.db.transaction(PICTURES, 'readonly');
    const [keys, pictures] = await Promise.all([request(transaction.objectStore(PICTURES).getAllKeys(range)),
      request(transaction.objectStore(PICTURES).getAll(range))]);
    const byKey = new Map(keys.map((key, i) => [key, pictures[i]]));
    for (const message of conversation.messages || []) {
      message.images = (message.images || []).map(image =>
        image.key && !image.dataUrl ? {...image, dataUrl: byKey.get(image.key) || ''} : image);
    }
    return conversation;
  }

  /** Saves the conversation; its pictures only the first time they are seen. */
  put(conversation) {
    const transaction = this.db.transaction([STORE, PICTURES], 'readwrite');
    const pictures = transaction.objectStore(PICTURES);
    const record = {...conversation, messages: conversation.messages.map(message => {
      if (!message.images || message.images.length === 0) return message;
      return {...message, images: message.images.map((image, i) => {
        const key = pictureKey(conversation, message, i);
        if (!this.written.has(key)) {
          pictures.put(image.dataUrl, key);
          this.written.add(key);
        }
        const {dataUrl, ...rest} = image;
        return {...rest, key};
      })};
    })};
    // a structured clone of plain data: the caller's object stays its own
    transaction.objectStore(STORE).put(record);
    return done(transaction);
  }

  remove(id) {
    const transaction = this.db.transaction([STORE, PICTURES], 'readwrite');
    transaction.objectStore(STORE).delete(id);
    // the conversation's pictures: every key from "<id>/" up to "<id>0" ('0' follows '/')
    transaction.objectStore(PICTURES).delete(IDBKeyRange.bound(`${id}/`, `${id}0`, false, true));
    for (const key of [...this.written]) {
      if (key.startsWith(`${id}/`)) this.written.delete(key);
    }
    return done(transaction);
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

  async pictures(conversation) {
    return conversation;
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
    const open = indexedDB.open(DB_NAME, 2);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(STORE)) {
        open.result.createObjectStore(STORE, {keyPath: 'id'});
      }
      if (!open.result.objectStoreNames.contains(PICTURES)) {
        open.result.createObjectStore(PICTURES);
      }
    };
    return new IndexedDbStore(await request(open));
  } catch (e) {
    return new MemoryStore(`IndexedDB is not available (${e && e.message ? e.message : e})`);
  }
}

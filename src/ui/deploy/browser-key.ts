/**
 * Where the Deploy panel keeps its key for each control plane: the non-extractable private key and the
 * id the control plane bound it to (core/deploy/proof.ts). IndexedDB keeps the CryptoKey object as is,
 * so the key stays unexportable across reloads; neither half is a secret a script can read and send.
 */

export interface StoredKey {
  keyId: string;
  privateKey: CryptoKey;
}

/** The panel's keys by control plane URL. */
export interface KeyStore {
  get(controlUrl: string): Promise<StoredKey | undefined>;
  put(controlUrl: string, key: StoredKey): Promise<void>;
  delete(controlUrl: string): Promise<void>;
}

/** Keys in memory: tests, and a browser without IndexedDB (signed in until the page is closed). */
export class MemoryKeyStore implements KeyStore {
  readonly #keys = new Map<string, StoredKey>();
  async get(controlUrl: string) {
    return this.#keys.get(controlUrl);
  }
  async put(controlUrl: string, key: StoredKey) {
    this.#keys.set(controlUrl, key);
  }
  async delete(controlUrl: string) {
    this.#keys.delete(controlUrl);
  }
}

const DATABASE = 'platform-deploy-keys';
const STORE = 'keys';

function request<T>(run: (store: IDBObjectStore) => IDBRequest<T>, mode: IDBTransactionMode): Promise<T> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DATABASE, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(STORE, mode);
      const req = run(tx.objectStore(STORE));
      tx.oncomplete = () => {
        db.close();
        resolve(req.result);
      };
      tx.onerror = tx.onabort = () => {
        db.close();
        reject(tx.error);
      };
    };
  });
}

/** The playground's keys in IndexedDB (its own origin only). */
export class IndexedDbKeyStore implements KeyStore {
  async get(controlUrl: string): Promise<StoredKey | undefined> {
    const value = (await request((s) => s.get(controlUrl), 'readonly')) as Partial<StoredKey> | undefined;
    return value && typeof value.keyId === 'string' && value.privateKey instanceof CryptoKey ? { keyId: value.keyId, privateKey: value.privateKey } : undefined;
  }
  async put(controlUrl: string, key: StoredKey): Promise<void> {
    await request((s) => s.put(key, controlUrl), 'readwrite');
  }
  async delete(controlUrl: string): Promise<void> {
    await request((s) => s.delete(controlUrl), 'readwrite');
  }
}

/** IndexedDB where the page has it, else memory. */
export const browserKeyStore = (): KeyStore => (typeof indexedDB === 'undefined' ? new MemoryKeyStore() : new IndexedDbKeyStore());

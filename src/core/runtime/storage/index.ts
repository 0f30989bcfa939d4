/** Object storage (`ctx.storage`): key rules, the object stores, and the API handlers see. */
export {
  KEY_REFUSAL,
  MAX_KEY_BYTES,
  isValidKey,
  isValidPrefix,
  keyRefusal,
  quoteForMessage,
  validateKey,
  validatePrefix,
} from './keys.ts';
export { CHUNKS_TABLE, MemoryObjectStore, OBJECTS_TABLE, SqlObjectStore, compareKeys } from './object-store.ts';
export type { ObjectStore, StoredRecord } from './object-store.ts';
export {
  DEFAULT_CONTENT_TYPE,
  DEFAULT_LIST_LIMIT,
  INVALID_CURSOR_MESSAGE,
  LIST_LIMIT_MESSAGE,
  MAX_LIST_LIMIT,
  createStorage,
  listCursorPurpose,
  maxObjectBytesMessage,
  readBudgetMessage,
  writeBudgetMessage,
} from './storage.ts';
export type {
  ListOptions,
  ObjectList,
  PutOptions,
  StorageOptions,
  StorageReader,
  StorageReceipt,
  StorageWriter,
  StoredObject,
  StoredObjectMetadata,
} from './storage.ts';

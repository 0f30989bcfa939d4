/** Project file access behind one interface, with an in-memory implementation. */
export { normalizeProjectPath, type EntryKind, type FileSystem, type WritableFileSystem } from './file-system';
export { MemoryFileSystem } from './memory-file-system';
export { isWriteRefusal, WriteRefusal, type WriteRefusalReason } from './write-refusal';

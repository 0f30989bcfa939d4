/** Project file access behind one interface, with an in-memory implementation. */
export { chunksOfFile, isAtOrInside, isInside, movedPath, normalizeProjectPath, writerOf, type EntryKind, type FileSystem, type FileWriter, type WritableFileSystem } from './file-system.ts';
export { MemoryFileSystem } from './memory-file-system.ts';
export { isWriteRefusal, WriteRefusal, type WriteRefusalReason } from './write-refusal.ts';

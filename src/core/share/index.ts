/** Share links (a project in a URL fragment), the bug report made from one, and the path rules for files from outside. */
export {
  decodeShareLink,
  encodeShareLink,
  linkFilesOf,
  MAX_SHARE_FILE_CHARS,
  MAX_SHARE_FILES,
  MAX_SHARE_LINK_CHARS,
  MAX_SHARE_NAME_CHARS,
  MAX_SHARE_PAYLOAD_BYTES,
  SHARE_LINK_VERSION,
  SHARE_ROUTE,
  shareFragment,
  type ShareLink,
  type ShareLinkDecodeResult,
  type ShareLinkEncodeResult,
  type ShareLinkError,
  type ShareLinkErrorCode,
} from './link.ts';
export { bugReport, MAX_REPORT_ITEMS, MAX_REPORT_LINK_CHARS, MAX_REPORT_VALUE_CHARS, type BugReportInput } from './bug-report.ts';
export { MAX_PATH_LENGTH, MAX_SEGMENT_LENGTH, pathSetProblem, projectPathProblem } from './paths.ts';
export {
  chooseObjects,
  isProjectDataDocument,
  MAX_CONTENT_TYPE_CHARS,
  MAX_LINK_OBJECT_BYTES,
  MAX_SHARED_OBJECTS,
  MAX_ZIP_OBJECT_BYTES,
  parseProjectData,
  parseSharedObjects,
  PROJECT_DATA_FILE,
  PROJECT_DATA_PROTOCOL,
  projectDataText,
  toSharedObject,
  type LeftOutObject,
  type ObjectEntry,
  type ProjectData,
  type SharedObject,
  type SharedObjectsError,
  type SharedObjectsErrorCode,
} from './objects.ts';

// What the rest of the code base uses of this folder's other modules.
export { foldedPath } from './paths.ts';
export { SHARE_HASH } from './route.ts';

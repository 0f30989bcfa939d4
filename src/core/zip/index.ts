/** Download a project as a zip, and open one from a zip safely (fflate). */
export { zipProject, type ZipProjectOptions, type ZipProjectResult } from './zip.ts';
export {
  MAX_ZIP_BYTES,
  MAX_ZIP_ENTRIES,
  MAX_ZIP_ENTRY_BYTES,
  MAX_ZIP_FILES,
  MAX_ZIP_TOTAL_BYTES,
  openZip,
  type OpenedZip,
  type OpenZipResult,
  type ZipError,
  type ZipErrorCode,
} from './unzip.ts';

/** What the client and the server agree on about uploads. */
export const MAX_UPLOAD_BYTES = 1048576;
/** The request header that carries the file's name (the body is the file itself). */
export const NAME_HEADER = 'x-file-name';

/** A file name made safe to show and to send back in Content-Disposition. */
export function cleanName(name: string | null): string {
  const cleaned = (name ?? '').replace(/[\u0000-\u001f"\\/]/g, '_').trim().slice(0, 255);
  return cleaned || 'untitled';
}

/** Saving bytes as a file from the page (an `<a download>` click), and file names made safe. */

/** Saves the bytes (or text) as a file named `name`; returns the file's size in bytes. */
export function downloadBytes(name: string, bytes: Uint8Array | string, type: string): number {
  const blob = new Blob([typeof bytes === 'string' ? bytes : (bytes as Uint8Array<ArrayBuffer>)], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return blob.size;
}

/** A file name from any text: letters, digits, `.`, `-` and `_`; never empty. */
export function safeFileName(text: string, fallback = 'download'): string {
  const name = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 100);
  return name || fallback;
}

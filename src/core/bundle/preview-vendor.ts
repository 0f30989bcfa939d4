/**
 * The marks around a preview's vendor script (React, built once per bundler: bundle.ts) at the start of
 * `client/app.js`, so that a preview frame loaded ahead of the next build can run the vendor script
 * before the app's code is known, and then run only the app's part of the next client.
 */

/** The vendor script's first line. */
export const PREVIEW_VENDOR_START = '// platform: the preview vendor script';
/** Its last line. */
export const PREVIEW_VENDOR_END = '// platform: end of the preview vendor script';

/** The vendor script at the start of a preview's client code, its marks and last line break included; undefined when there is none. */
export function previewVendorOf(code: string): string | undefined {
  if (!code.startsWith(`${PREVIEW_VENDOR_START}\n`)) return undefined;
  const end = code.indexOf(`\n${PREVIEW_VENDOR_END}\n`);
  return end < 0 ? undefined : code.slice(0, end + PREVIEW_VENDOR_END.length + 2);
}

/**
 * The client code of a page where `vendor` (its start, see previewVendorOf) has run already: the
 * vendor's lines left blank, so the app's code keeps its lines and its source map still fits.
 */
export function afterPreviewVendor(code: string, vendor: string): string {
  return '\n'.repeat(lineBreaks(vendor)) + code.slice(vendor.length);
}

/** How many line breaks `text` has: the lines the app's code (and its source map) is moved down by the vendor script. */
export function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

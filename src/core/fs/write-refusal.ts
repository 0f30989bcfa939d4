/**
 * A write a file system refused because its path leaves the project: through `..`, or through a
 * symbolic link on the way or at the file itself. Marked by a brand (not a class check), so a command
 * tells it from other failures whichever copy of this module threw it.
 */

const BRAND = Symbol.for('platform.write-refusal');

/** Why: `outside` for a path that climbs out of the root, `link` for a link where the path goes. */
export type WriteRefusalReason = 'outside' | 'link';

export class WriteRefusal extends Error {
  readonly [BRAND] = true;
  /** The refused path, as given (project-relative, or the absolute path a host used). */
  readonly path: string;
  readonly reason: WriteRefusalReason;
  /** The part of the path that is a link (project-relative), when the reason is `link`. */
  readonly link?: string;

  constructor(path: string, reason: WriteRefusalReason, link?: string) {
    super(
      reason === 'link'
        ? `Refusing to write ${path}: ${link ?? path} is a symbolic link, and writes under a project never follow links.`
        : `Refusing to write outside the project: ${path}`,
    );
    this.path = path;
    this.reason = reason;
    if (link !== undefined) this.link = link;
  }
}

export function isWriteRefusal(error: unknown): error is WriteRefusal {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

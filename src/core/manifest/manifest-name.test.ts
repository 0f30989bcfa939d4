/** `manifestName`: the app name a project's manifest text gives, read without validating the manifest. */
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, manifestName } from './index.ts';

describe("a project's app name", () => {
  it("is the manifest's name, or nothing when the manifest is missing, broken or names none", () => {
    expect(manifestName({ [MANIFEST_FILE]: '{"name":"notes","database":{}}' })).toBe('notes');
    for (const text of [undefined, '', '{', 'null', '[]', '{"name":""}', '{"name":3}', '{}']) {
      expect(manifestName(text === undefined ? {} : { [MANIFEST_FILE]: text })).toBeUndefined();
    }
  });
});

/**
 * Node's SHA-256 and HMAC-SHA-256, in native code, for the core's `sha256Hex` and `hmacSha256Hex`
 * (src/core/hash): installed when this module loads, which the Node compiler and the control plane
 * import. The digests are the core's own; only their cost changes.
 */
import * as crypto from 'node:crypto';
import { useHostHmacSha256, useHostSha256 } from '../../core/hash/index.ts';

/** Lowercase hex SHA-256 of bytes or of a string's UTF-8. */
export function nodeSha256(data: Uint8Array | string): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/** Node's one-shot digest (20.12 and later): about twice as quick as a Hash object for the analysis's many small inputs. */
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array | string, encoding: 'hex') => string }).hash;

useHostSha256(nodeSha256);
useHostHmacSha256((key, data) => crypto.createHmac('sha256', key).update(data).digest('hex'));

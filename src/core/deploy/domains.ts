/**
 * Custom domains as the CLI and the control plane both see them: the hostname rules of tooling.md
 * (fully qualified ASCII, no scheme, port, path or wildcard), the DNS record that proves ownership, and
 * the shape of a domain in the control plane's answers.
 */
import { APP_ID } from './ids.ts';

/** A custom domain's states: waiting for its verification record, routed to production, or detached with cleanup left to do. */
export type DomainState = 'pending' | 'active' | 'cleanup_pending';

export interface DomainInfo {
  hostname: string;
  appId: string;
  state: DomainState;
  createdAt: string;
  verifiedAt?: string;
  /** A pending domain's deadline: unverified then, the claim lapses and the hostname is released to whoever claims it. */
  verifyBy?: string;
  /** The DNS record the owner publishes to prove the hostname is theirs. */
  verification: { type: 'TXT'; name: string; value: string };
}

/** The TXT record name the control plane reads to verify a hostname. */
export function verificationName(hostname: string): string {
  return `_platform-challenge.${hostname}`;
}

/** The TXT value that proves a hostname for one verification token. */
export function verificationValue(token: string): string {
  return `platform-verify=${token}`;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why a value is not a usable custom hostname, or undefined when it is one. The value is compared as
 * given: lowercase it first (`normalizeHostname`).
 */
export function hostnameProblem(value: string): string | undefined {
  if (value.length === 0) return 'it is empty';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return 'it has a scheme; give the hostname alone (app.example.com)';
  if (value.includes('/')) return 'it has a path; give the hostname alone';
  if (value.includes('*')) return 'wildcards are not supported; add each hostname';
  if (value.includes(':')) return 'it has a port; custom domains are served on the standard ports';
  // eslint-disable-next-line no-control-regex
  if (/[^\x21-\x7e]/.test(value)) return 'it is not ASCII; give an internationalized name in its xn-- form';
  if (value.endsWith('.')) return 'give it without the trailing dot';
  if (value.length > 253) return 'it is longer than 253 characters';
  const labels = value.split('.');
  if (labels.length < 2) return 'it is not fully qualified (app.example.com)';
  for (const label of labels) {
    if (!LABEL.test(label)) return `"${label}" is not a DNS label (letters, digits and inner hyphens, at most 63)`;
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return 'an IP address is not a hostname';
  return undefined;
}

/** Hostnames compare without case. */
export function normalizeHostname(value: string): string {
  return value.toLowerCase();
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isDomain(value: unknown): value is DomainInfo {
  return (
    isObject(value) && isString(value.hostname) && hostnameProblem(value.hostname) === undefined && isString(value.appId) && APP_ID.test(value.appId) &&
    (value.state === 'pending' || value.state === 'active' || value.state === 'cleanup_pending') && isString(value.createdAt) &&
    (value.verifiedAt === undefined || isString(value.verifiedAt)) && (value.verifyBy === undefined || isString(value.verifyBy)) &&
    isObject(value.verification) && value.verification.type === 'TXT' && isString(value.verification.name) && isString(value.verification.value)
  );
}

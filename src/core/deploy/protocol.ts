/**
 * The control plane's HTTP API as data: the shapes it answers with and the checks a client makes before
 * trusting an answer. Shared by the CLI's commands, the playground's Deploy panel and the control plane.
 */
import { type Environment, type EnvScope, APP_ID, ARTIFACT_ID, DEPLOYMENT_ID, RECEIPT_ID, SERVICE_TOKEN_ID } from './ids.ts';

import type { ExportPage } from '../state/index.ts';
import type { Manifest } from '../manifest/index.ts';
import type { CallError } from '../runtime/index.ts';
export const CONTROL_PROTOCOL = 'platform.control.v0';
export const PROJECT_FORMAT = 'platform.project.v0';
export const PROJECT_CACHE_FORMAT = 'platform.project-cache.v0';
export const ENV_LOCAL_FORMAT = 'platform.env-local.v0';
export const DEFAULT_CONTROL_URL = 'http://localhost:4310';

/** The error codes the control plane answers with (`error.code`). */
export const CONTROL_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'credential_expired',
  /** A playground's signed request from an origin its key was not bound to (or no playground's). */
  'foreign_origin',
  'interactive_required',
  'not_owner',
  'app_not_found',
  'app_deleted',
  'app_disabled',
  'quota_exceeded',
  'rate_limited',
  'artifact_invalid',
  'module_invalid',
  'provision_failed',
  'runtime_not_ready',
  'runtime_unhealthy',
  'no_deployment',
  'no_preview',
  'no_receipt',
  'confirm_mismatch',
  'token_not_found',
  'authorization_pending',
  'expired_token',
  'access_denied',
  'too_large',
  'not_found',
  'not_deployed',
  'state_bootstrap_failed',
  'state_unavailable',
  'domain_not_found',
  'domain_unavailable',
  'no_production',
  'provider_unavailable',
  'cleanup_pending',
  'tunnel_not_found',
  'internal',
] as const;

export type ControlErrorCode = (typeof CONTROL_ERROR_CODES)[number];

export interface ControlError {
  code: ControlErrorCode;
  message: string;
  /** For `quota_exceeded`: which quota, and when it frees (ISO 8601), when it frees with time. */
  quota?: 'apps' | 'deploys-hour' | 'deploys-day';
  /** For `quota_exceeded` and `rate_limited`: when the next request is allowed (ISO 8601). */
  resetAt?: string;
  /** For `credential_expired`: which credential expired. */
  credential?: 'session' | 'service-token';
  /** For `state_bootstrap_failed` and `state_unavailable`: the app's own error id, when it gave one. */
  errorId?: string;
}

export interface BuilderInfo {
  id: string;
  name: string;
}

export type AppState = 'active' | 'disabled' | 'deleted';

export interface AppInfo {
  id: string;
  name: string;
  state: AppState;
  createdAt: string;
  /** The hosted origins of both environments. */
  urls: Record<Environment, string>;
  /** The artifact each environment serves, when it serves one. */
  serving: Partial<Record<Environment, string>>;
  /** The deployment each environment is live from: the one that made it serve what it serves (a `dep_` id). */
  live: Partial<Record<Environment, string>>;
}

export interface DeploymentInfo {
  id: string;
  appId: string;
  environment: Environment;
  artifactId: string;
  kind: 'deploy' | 'promote' | 'rollback';
  state: 'completed' | 'failed';
  createdAt: string;
  /** The review receipt of a completed preview deployment (what `promote --receipt` names). */
  receiptId?: string;
  error?: { code: ControlErrorCode; message: string };
}

export interface ServiceTokenInfo {
  id: string;
  name: string;
  createdAt: string;
  /** When it stops being accepted (service tokens live 90 days by default). */
  expiresAt?: string;
  lastUsedAt?: string;
}

export interface EnvVariableInfo {
  name: string;
  updatedAt: string;
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresAt: string;
  intervalMs: number;
}

/** What `platform inspect` and the Deploy panel read of a deployed app's environment. */
export const INSPECT_VIEWS = ['manifest', 'state', 'logs', 'export'] as const;
export type InspectView = (typeof INSPECT_VIEWS)[number];

/** One call a deployed app served, as its owner sees it (kept in memory, the last CALL_LOG_SIZE per environment). */
export interface CallRecord {
  at: string;
  method: string;
  /** The path without its query (which may carry a visitor's input). */
  path: string;
  status: number;
  durationMs: number;
  visitor: 'guest' | 'user';
  /** A failed call's runtime error, as the visitor received it. */
  error?: CallError;
  /** What the handler wrote with `console` (cut to the runtime's LOG_LIMITS). */
  logs: Array<{ level: 'debug' | 'log' | 'info' | 'warn' | 'error'; message: string }>;
}

export const CALL_LOG_SIZE = 200;

/** A cursor a read of the logs gives and `after` names: the log's generation and a sequence number. Anything else is refused. */
export const CALL_CURSOR = /^[0-9a-f]{12}\.[0-9]{1,15}$/;

export interface InspectTable {
  name: string;
  /** Declared in the manifest (the rest are the runtime's own tables). */
  declared: boolean;
  rowCount: number;
  columns: Array<{ name: string; type: string; notNull: boolean; primaryKey: boolean }>;
}

interface InspectBase {
  appId: string;
  environment: Environment;
  /** The artifact the environment serves, and the deployment that made it serve. */
  artifactId: string;
  deployment?: DeploymentInfo;
}

export type InspectAnswer = InspectBase &
  (
    /** The manifest the artifact was deployed with (checked when the control plane received it). */
    | { view: 'manifest'; manifest: Manifest }
    | { view: 'state'; tables: InspectTable[]; operations: Array<{ kind: 'query' | 'mutation'; name: string }>; rows?: { table: string; total: number; columns: string[]; rows: unknown[][] } }
    | { view: 'logs'; calls: CallRecord[]; cursor: string }
    /** One page of the state export (`cursor` and `maxRows` in the query); the CLI writes the document from the pages. */
    | { view: 'export'; page: ExportPage }
  );

export type { Environment, EnvScope };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isString = (value: unknown): value is string => typeof value === 'string';
const isDate = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));

export function isBuilder(value: unknown): value is BuilderInfo {
  return isObject(value) && isString(value.id) && isString(value.name);
}

export function isApp(value: unknown): value is AppInfo {
  return (
    isObject(value) && isString(value.id) && APP_ID.test(value.id) && isString(value.name) && (value.state === 'active' || value.state === 'disabled' || value.state === 'deleted') &&
    isDate(value.createdAt) && isObject(value.urls) && isString(value.urls.preview) && isString(value.urls.production) && isObject(value.serving) &&
    Object.values(value.serving).every((id) => isString(id) && ARTIFACT_ID.test(id)) &&
    isObject(value.live) && Object.values(value.live).every((id) => isString(id) && DEPLOYMENT_ID.test(id))
  );
}

export function isDeployment(value: unknown): value is DeploymentInfo {
  return (
    isObject(value) && isString(value.id) && DEPLOYMENT_ID.test(value.id) && isString(value.appId) && APP_ID.test(value.appId) &&
    (value.environment === 'preview' || value.environment === 'production') && isString(value.artifactId) && ARTIFACT_ID.test(value.artifactId) &&
    (value.kind === 'deploy' || value.kind === 'promote' || value.kind === 'rollback') && (value.state === 'completed' || value.state === 'failed') &&
    isDate(value.createdAt) && (value.receiptId === undefined || (isString(value.receiptId) && RECEIPT_ID.test(value.receiptId))) &&
    (value.error === undefined || (isObject(value.error) && isString(value.error.code) && isString(value.error.message)))
  );
}

export function isServiceToken(value: unknown): value is ServiceTokenInfo {
  return isObject(value) && isString(value.id) && SERVICE_TOKEN_ID.test(value.id) && isString(value.name) && isDate(value.createdAt) && (value.lastUsedAt === undefined || isDate(value.lastUsedAt));
}

export function isEnvVariable(value: unknown): value is EnvVariableInfo {
  return isObject(value) && isString(value.name) && isDate(value.updatedAt);
}

export function isDeviceAuthorization(value: unknown): value is DeviceAuthorization {
  return (
    isObject(value) && isString(value.deviceCode) && isString(value.userCode) && isString(value.verificationUri) && isString(value.verificationUriComplete) &&
    isDate(value.expiresAt) && typeof value.intervalMs === 'number' && value.intervalMs > 0
  );
}

const isCallRecord = (value: unknown): value is CallRecord =>
  isObject(value) && isDate(value.at) && isString(value.method) && isString(value.path) && Number.isInteger(value.status) && typeof value.durationMs === 'number' &&
  (value.visitor === 'guest' || value.visitor === 'user') && Array.isArray(value.logs) && value.logs.every((l) => isObject(l) && isString(l.level) && isString(l.message)) &&
  (value.error === undefined || (isObject(value.error) && isString(value.error.code) && isString(value.error.message)));

const isInspectTable = (value: unknown): value is InspectTable =>
  isObject(value) && isString(value.name) && typeof value.declared === 'boolean' && Number.isInteger(value.rowCount) && Array.isArray(value.columns) && value.columns.every((c) => isObject(c) && isString(c.name));

/** Whether an answer of the inspect route is one, for the view that was asked. */
export function isInspectAnswer(value: unknown, view: InspectView): value is InspectAnswer {
  if (!isObject(value) || value.view !== view || !isString(value.appId) || !APP_ID.test(value.appId) || (value.environment !== 'preview' && value.environment !== 'production')) return false;
  if (!isString(value.artifactId) || !ARTIFACT_ID.test(value.artifactId) || (value.deployment !== undefined && !isDeployment(value.deployment))) return false;
  switch (view) {
    case 'manifest':
      return isObject(value.manifest);
    case 'state':
      return Array.isArray(value.tables) && value.tables.every(isInspectTable) && Array.isArray(value.operations) && (value.rows === undefined || (isObject(value.rows) && Array.isArray(value.rows.rows)));
    case 'logs':
      return Array.isArray(value.calls) && value.calls.length <= CALL_LOG_SIZE && value.calls.every(isCallRecord) && isString(value.cursor);
    case 'export':
      return isObject(value.page) && isObject(value.page.head) && Array.isArray(value.page.head.tables) && Array.isArray(value.page.rows) && (value.page.next === null || isString(value.page.next));
  }
}

export { isObject };

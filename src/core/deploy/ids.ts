/** The shapes of the control plane's identifiers and names, checked the same way by the CLI, the UI and the control plane. */

/** `app_` + 26 lowercase base32 characters. */
export const APP_ID = /^app_[a-z2-7]{26}$/;
/** `sha256:` + 64 lowercase hex digits. */
export const ARTIFACT_ID = /^sha256:[0-9a-f]{64}$/;
/** A service token: `xst_` + 43 base64url characters (32 random bytes). */
export const SERVICE_TOKEN = /^xst_[A-Za-z0-9_-]{43}$/;
/** A builder session, the credential `auth login` stores: `xbs_` + 43 base64url characters. */
export const SESSION_TOKEN = /^xbs_[A-Za-z0-9_-]{43}$/;
/** The id of a service token, safe to show: `xstid_` + 26 lowercase base32 characters. */
export const SERVICE_TOKEN_ID = /^xstid_[a-z2-7]{26}$/;
/** A review receipt, issued with each completed preview deployment. */
export const RECEIPT_ID = /^review_[a-z2-7]{26}$/;
/** A deployment record. */
export const DEPLOYMENT_ID = /^dep_[a-z2-7]{26}$/;
/** An environment value's name. */
export const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
/** A service token's label. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
/** The longest environment value the control plane keeps, in UTF-8 bytes. */
export const ENV_VALUE_MAX_BYTES = 8192;

/** Where an app is deployed. */
export type Environment = 'preview' | 'production';
/** Where environment values apply: the two hosted environments and local `dev`. */
export type EnvScope = Environment | 'dev';

/** `prod` and `production` name production; `preview` is preview; anything else (including `dev`) is undefined. */
export function deployEnvironment(value: string): Environment | undefined {
  if (value === 'prod' || value === 'production') return 'production';
  if (value === 'preview') return 'preview';
  return undefined;
}

/** The scopes of `env`: `prod`/`production`, `preview` and `dev`. */
export function envScope(value: string): EnvScope | undefined {
  return value === 'dev' ? 'dev' : deployEnvironment(value);
}

/** The host label of a deployed app: `_` is not reliable in host names, so `app_x` becomes `app-x`. */
export function hostLabel(appId: string): string {
  return appId.replace('_', '-');
}

const HOSTED_HOST = /^app-([a-z2-7]{26})(--preview)?\.localhost(?::\d+)?$/;

/** Which deployed app and environment a Host (`app-…--preview.localhost:4310`) names, if any. */
export function hostedTarget(host: string | undefined): { appId: string; environment: Environment } | undefined {
  const match = host ? HOSTED_HOST.exec(host.toLowerCase()) : null;
  return match ? { appId: `app_${match[1]}`, environment: match[2] ? 'preview' : 'production' } : undefined;
}

/** The origin an app's environment is served at, on the control plane's port: `<app>--preview.localhost` or `<app>.localhost`. */
export function hostedOrigin(appId: string, environment: Environment, controlUrl: string): string {
  const url = new URL(controlUrl);
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//${hostLabel(appId)}${environment === 'preview' ? '--preview' : ''}.localhost${port}`;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a value is not an exact HTTP(S) origin (`http://localhost:5173`: no path, query, slash or credentials), or undefined. */
export function originProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `its scheme is ${url.protocol.replace(':', '')}, not http or https`;
  if (url.username || url.password) return 'it carries credentials';
  if (url.origin !== value) return `it is not an exact origin (the origin is ${url.origin}; leave out any path, query or trailing slash)`;
  return undefined;
}

/**
 * Why a `--control-url` value is refused, or undefined when it is usable: an exact HTTP(S) origin (no
 * path, query, fragment or credentials) and plain HTTP only on localhost.
 */
export function controlUrlProblem(value: string): string | undefined {
  const problem = originProblem(value);
  if (problem) return problem;
  const url = new URL(value);
  if (url.protocol === 'http:' && !LOCAL_HOSTS.has(url.hostname) && !url.hostname.endsWith('.localhost')) return 'plain HTTP is allowed only on localhost';
  return undefined;
}

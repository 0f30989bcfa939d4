/**
 * Custom domains: a builder attaches a hostname to an app; the control plane routes it to the app's
 * production once the owner has published the verification record (read through the configured
 * resolver), and detaches it on removal, leaving the hosting provider's cleanup to finish (or to be
 * repeated). A claim not verified by its deadline lapses and is released; before it, another builder
 * who publishes their own record takes the hostname from an unverified claim. docs/control-plane.md,
 * Custom domains; docs/decisions.md.
 */
import { resolveTxt } from 'node:dns/promises';
import type { Hono } from 'hono';
import { hostnameProblem, normalizeHostname, verificationName, verificationValue, type DomainInfo, type DomainState, ROUTES } from '../core/deploy';
import { answer, iso, jsonObject, ownedApp, refuse, type Caller, type Context, type Refused } from './context';
import { domainRecords, type DomainRecords } from './domain-records';
import { on, ownsApp, signedIn, type ControlEnv, type RouteResult } from './middleware';
import type { Records, Row } from './records';
import { hmac } from './secrets';

/** Reads the TXT records of a name: DNS in service, a table in tests. */
export interface DomainResolver {
  /** The TXT values at `name` (each record's strings joined); none when the name has none. Throws when the lookup itself fails. */
  txt(name: string): Promise<string[]>;
}

/** The resolver of a control plane in service: the system's DNS. */
export const dnsResolver: DomainResolver = {
  async txt(name) {
    try {
      return (await resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
      throw error;
    }
  },
};

/** A resolver answering from records set in process: drives verification in tests on loopback. */
export class TableResolver implements DomainResolver {
  readonly #records = new Map<string, string[]>();
  failing = false;
  set(name: string, values: string[]): void {
    this.#records.set(name.toLowerCase(), values);
  }
  async txt(name: string): Promise<string[]> {
    if (this.failing) throw new Error('the resolver is unavailable');
    return this.#records.get(name.toLowerCase()) ?? [];
  }
}

/**
 * Where a hostname is made servable (edge route, certificate) and released again. The loopback control
 * plane serves every attached hostname on its own port over plain HTTP, so it needs no certificate.
 */
export interface DomainProvider {
  /** Throws when the provider is unavailable or refuses; nothing is attached then. */
  attach(hostname: string): Promise<void>;
  /** Releases the hostname and its certificate; throws when that cleanup could not finish. */
  release(hostname: string): Promise<void>;
}

export const loopbackProvider: DomainProvider = {
  async attach() {},
  async release() {},
};

export interface DomainOptions {
  resolver?: DomainResolver;
  provider?: DomainProvider;
  /** Custom domains one builder may hold at once (default 10). */
  perBuilder?: number;
  /** How long a claim may stay pending before it lapses and the hostname is released (default 72 hours). */
  verifyWithinMs?: number;
}

/** A pending claim's time to publish its record: past it, the claim lapses and anyone may claim the hostname. */
export const DEFAULT_VERIFY_WITHIN_MS = 72 * 3_600_000;

/** Names no builder may attach: loopback names, special-use names, and the control plane's own host. */
function reserved(hostname: string, publicOrigin: string): boolean {
  const own = new URL(publicOrigin).hostname.toLowerCase();
  const under = (suffix: string) => hostname === suffix || hostname.endsWith(`.${suffix}`);
  return ['localhost', 'local', 'invalid', 'test', 'example', 'internal'].some(under) || under(own);
}

export class Domains {
  readonly #records: Records;
  /** The domains' records (domain-records.ts), over `#records`. */
  readonly #repo: DomainRecords;
  readonly #ctx: Context;
  readonly resolver: DomainResolver;
  readonly provider: DomainProvider;
  readonly perBuilder: number;
  readonly verifyWithinMs: number;
  /** Attached hostnames → their app (active ones) or undefined (pending, cleanup), read from the records on every change: routing reads it per request. */
  #routes = new Map<string, string | undefined>();

  constructor(ctx: Context, options: DomainOptions = {}) {
    this.#ctx = ctx;
    this.#records = ctx.records;
    this.#repo = domainRecords(ctx.records);
    this.resolver = options.resolver ?? dnsResolver;
    this.provider = options.provider ?? loopbackProvider;
    this.perBuilder = options.perBuilder ?? 10;
    this.verifyWithinMs = options.verifyWithinMs ?? DEFAULT_VERIFY_WITHIN_MS;
  }

  /** Makes the domains' records where they are missing and reads the routes: before anything is served. */
  async start(): Promise<void> {
    await this.#repo.domains.ensureSchema();
    await this.#reload();
    if (this.#records.engine === 'postgres') this.#records.onChange(() => (this.#stale = true));
  }

  async #reload(): Promise<void> {
    this.#stale = false;
    this.#routes = new Map((await this.#repo.domains.routes()).map((row) => [String(row.hostname), row.state === 'active' ? String(row.appId) : undefined]));
  }

  /** Set when records shared with other control planes (PostgreSQL) changed: their domains may have too. */
  #stale = false;

  /** The routes as the records have them now: read again after another control plane's change. */
  async fresh(): Promise<void> {
    if (this.#stale) await this.#reload();
  }

  /**
   * Where a Host header (`shop.example.com`, with or without a port) goes: the app whose production an
   * active custom domain routes to, `unrouted` for an attached hostname not (or no longer) verified, or
   * undefined for a host that is no custom domain.
   */
  route(host: string | undefined): { appId: string } | 'unrouted' | undefined {
    if (!host || this.#routes.size === 0) return undefined;
    const name = host.toLowerCase().replace(/:\d+$/, '');
    if (!this.#routes.has(name)) return undefined;
    const appId = this.#routes.get(name);
    return appId ? { appId } : 'unrouted';
  }

  info(row: Row): DomainInfo {
    const hostname = String(row.hostname);
    return {
      hostname,
      appId: String(row.appId),
      state: row.state as DomainState,
      createdAt: iso(Number(row.createdAt)),
      ...(row.verifiedAt !== null && row.verifiedAt !== undefined ? { verifiedAt: iso(Number(row.verifiedAt)) } : {}),
      ...(row.state === 'pending' ? { verifyBy: iso(Number(row.createdAt) + this.verifyWithinMs) } : {}),
      verification: { type: 'TXT', name: verificationName(hostname), value: verificationValue(String(row.token)) },
    };
  }

  /** Checks a pending domain's record; routes it once the owner's value is published. A failed lookup leaves it pending. */
  async verify(row: Row): Promise<Row> {
    if (row.state !== 'pending') return row;
    const hostname = String(row.hostname);
    let values: string[];
    try {
      values = await this.resolver.txt(verificationName(hostname));
    } catch {
      return row;
    }
    if (!values.includes(verificationValue(String(row.token)))) return row;
    await this.#repo.claims.markVerified(hostname, this.#ctx.now());
    await this.#reload();
    return (await this.#repo.domains.get(hostname))!;
  }

  /**
   * The verification token of one builder's claim on one hostname: the same each time they claim it, so
   * a builder refused a hostname another has claimed can publish its record first and then take it.
   */
  claimToken(builderId: string, hostname: string): string {
    return Buffer.from(hmac(this.#ctx.secrets.cookieKey, `domain-claim\u0000${builderId}\u0000${hostname}`), 'base64url').toString('hex').slice(0, 32);
  }

  /** Whether the hostname's TXT record holds the value of `token` now (a failed lookup proves nothing). */
  async #proves(hostname: string, token: string): Promise<boolean> {
    try {
      return (await this.resolver.txt(verificationName(hostname))).includes(verificationValue(token));
    } catch {
      return false;
    }
  }

  /**
   * Releases the claims that lapsed: a domain still pending at its deadline is checked once more (its
   * record may have been published in time), then detached and released at the provider, so that
   * anyone may claim the hostname. A release that fails leaves it awaiting cleanup, repeated by the
   * next sweep. Run before every domain request that reads or claims a hostname.
   */
  async sweep(): Promise<void> {
    const cutoff = this.#ctx.now() - this.verifyWithinMs;
    for (const row of await this.#repo.claims.lapsed(cutoff)) {
      if (row.state === 'pending' && (await this.verify(row)).state === 'active') continue;
      await this.#release(String(row.hostname));
    }
  }

  /** Detaches routing at once, then releases the hostname at the provider and forgets it: the provider's error when that failed (then it awaits cleanup). */
  async #release(hostname: string): Promise<Error | undefined> {
    await this.#repo.domains.markCleanupPending(hostname);
    await this.#reload();
    try {
      await this.provider.release(hostname);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    await this.#repo.domains.remove(hostname);
    await this.#reload();
    return undefined;
  }

  /** The caller's domain of that hostname, or the refusal (another builder's is answered as unknown). */
  async owned(caller: Caller, hostname: string): Promise<Row | Refused> {
    const name = normalizeHostname(hostname);
    const row = await hostnameProblem(name) ? undefined : (await this.#repo.domains.get(name));
    if (!row || row.builderId !== caller.builderId) return refuse(404, 'domain_not_found', `None of your apps has the domain ${JSON.stringify(hostname)}.`);
    return row;
  }

  async add(caller: Caller, app: Row, given: unknown): Promise<RouteResult<typeof ROUTES.addDomain>> {
    if (typeof given !== 'string') return refuse(400, 'invalid_request', 'The body needs { "hostname": "<hostname>" }.');
    const hostname = normalizeHostname(given);
    const problem = hostnameProblem(hostname);
    if (problem) return refuse(400, 'invalid_request', `${JSON.stringify(given)} is not a usable hostname: ${problem}.`);
    if (reserved(hostname, this.#ctx.publicOrigin)) return refuse(409, 'domain_unavailable', `${hostname} is reserved and cannot be attached.`);
    const appId = String(app.id);
    await this.sweep();
    const existing = await this.#repo.domains.get(hostname);
    if (existing) {
      if (existing.state === 'cleanup_pending') {
        return refuse(409, 'domain_unavailable', existing.builderId === caller.builderId ? `${hostname} is awaiting cleanup after its removal; finish it with platform domains remove ${hostname}.` : `${hostname} is being released by the hosting provider; try again later.`);
      }
      if (existing.appId === appId && existing.builderId === caller.builderId) return answer(200, { domain: this.info(await this.verify(existing)) });
      // Another builder's claim not verified yet gives way to a proof of ownership (below); anything else is taken.
      if (existing.state === 'active' || existing.builderId === caller.builderId || (await this.verify(existing)).state === 'active') {
        return refuse(409, 'domain_unavailable', `${hostname} is already attached to another app.`);
      }
    }
    const held = await this.#repo.domains.countOf(caller.builderId);
    if (held >= this.perBuilder) return refuse(409, 'domain_unavailable', `You hold ${held} custom domains, the most a builder may; remove one first.`);
    if ((await this.#ctx.apps.serving.artifact(appId, 'production')) === undefined) {
      return refuse(409, 'no_production', `The app ${appId} has no successful production deployment; a domain serves production.`);
    }
    const token = this.claimToken(caller.builderId, hostname);
    if (existing) {
      const lapses = Number(existing.createdAt) + this.verifyWithinMs;
      if (!(await this.#proves(hostname, token))) {
        return refuse(
          409,
          'domain_unavailable',
          `${hostname} is claimed by another builder but not verified; that claim lapses at ${iso(lapses)}. If the hostname is yours, publish TXT ${verificationName(hostname)} = "${verificationValue(token)}" and add it again: it is then yours at once.`,
          { resetAt: iso(lapses) },
        );
      }
      // Proven: the unverified claim gives way. The hostname stays attached at the provider throughout.
      const now = this.#ctx.now();
      const taken = await this.#records.transaction(async () => {
        if (!(await this.#repo.claims.isPendingOf(hostname, existing.builderId as string))) return false;
        await this.#repo.domains.remove(hostname);
        await this.#repo.claims.insertVerified({ hostname, appId, builderId: caller.builderId, token, at: now });
        return true;
      });
      await this.#reload();
      if (!taken) return refuse(409, 'domain_unavailable', `${hostname} changed while it was checked; add it again.`);
      return answer(201, { domain: this.info((await this.#repo.domains.get(hostname))!) });
    }
    try {
      await this.provider.attach(hostname);
    } catch (error) {
      return refuse(503, 'provider_unavailable', `The hosting provider did not attach ${hostname}: ${error instanceof Error ? error.message : String(error)}. Nothing was attached.`);
    }
    await this.#repo.claims.insertPending({ hostname, appId, builderId: caller.builderId, token, createdAt: this.#ctx.now() });
    await this.#reload();
    const row = await this.verify((await this.#repo.domains.get(hostname))!);
    return answer(201, { domain: this.info(row) });
  }

  /** Detaches routing at once, then releases the hostname; a failed release leaves it awaiting cleanup. */
  async remove(row: Row): Promise<RouteResult<typeof ROUTES.removeDomain>> {
    const hostname = String(row.hostname);
    const failed = await this.#release(hostname);
    if (failed) return refuse(503, 'cleanup_pending', `${hostname} no longer routes to the app, but its cleanup did not finish (${failed.message}); run platform domains remove ${hostname} again.`);
    return answer(200, { removed: true, hostname });
  }

  /** The caller's domains (of one app); a claim past its deadline is left out, lapsed, even before a sweep releases it. */
  async list(caller: Caller, appId?: string): Promise<DomainInfo[]> {
    const lapsed = this.#ctx.now() - this.verifyWithinMs;
    const rows = appId
      ? (await this.#repo.domains.ofBuilderApp(caller.builderId, appId))
      : (await this.#repo.domains.ofBuilder(caller.builderId));
    return rows.filter((row) => !(row.state === 'pending' && Number(row.createdAt) <= lapsed)).map((row) => this.info(row));
  }
}

export function domainRoutes(app: Hono<ControlEnv>, ctx: Context, domains: Domains): void {
  on(app, ROUTES.addDomain, ownsApp(ctx), async (c) => {
    const body = await jsonObject(c.req.raw);
    return domains.add(c.get('caller'), c.get('app'), body?.hostname);
  });
  on(app, ROUTES.listDomains, signedIn(ctx), async (c) => {
    // `?app=` lists one app's domains, refused as `add` is for an app the caller does not own.
    const appId = c.req.query('app');
    if (appId === undefined) return answer(200, { domains: await domains.list(c.get('caller')) });
    const row = await ownedApp(ctx, c.get('caller'), appId);
    return row instanceof Response ? row : answer(200, { domains: await domains.list(c.get('caller'), String(row.id)) });
  });
  on(app, ROUTES.domainStatus, signedIn(ctx), async (c) => {
    await domains.sweep();
    const row = await domains.owned(c.get('caller'), c.req.param('hostname') ?? '');
    if (row instanceof Response) return row;
    return answer(200, { domain: domains.info(await domains.verify(row)) });
  });
  on(app, ROUTES.removeDomain, signedIn(ctx), async (c) => {
    await domains.sweep();
    const row = await domains.owned(c.get('caller'), c.req.param('hostname') ?? '');
    if (row instanceof Response) return row;
    return domains.remove(row);
  });
}

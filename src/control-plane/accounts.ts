/**
 * Accounts are people: a name and one or more passkeys (WebAuthn, verified by @simplewebauthn/server).
 * Anyone may make an account; builder status is granted to an account once, with the operator secret.
 * A passkey sign-in gives the browser an account session (an HttpOnly cookie on the control plane's
 * origin) that the approval page (/device) and the account page (/account) read.
 *
 * The relying party is the configured public origin, never a request's Host: its hostname is the rpID
 * and it is the only origin a ceremony's response may come from. Challenges are kept in memory, each
 * for one ceremony (registration or authentication), used once and for at most CHALLENGE_TTL_MS; a
 * restart forgets them (the person starts again). Nothing is written to the records before a passkey
 * has been verified, so strangers asking for challenges cost memory (bounded) and no disk writes.
 */
import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import { accountRecords, type AccountRecords } from './account-records';
import { newId, type Context } from './context';
import { RateLimit } from './rate-limit';
import type { Row } from './records';
import { hashToken, sameSecret } from './secrets';

/** An account's name: the builder-name rule (it becomes the builder's name once granted). */
export const ACCOUNT_NAME = /^[a-z][a-z0-9-]{1,31}$/;
/** How long a ceremony's challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** How long a browser stays signed in to its account after a passkey sign-in (not extended by use). */
export const ACCOUNT_SESSION_TTL_MS = 60 * 60_000;
/** Ceremonies (registration or sign-in) one client address may start in a minute. */
export const CEREMONIES_PER_MINUTE = 30;
/** Challenges waiting for an answer at once, whoever asked: past it, new ceremonies wait. */
export const MAX_PENDING_CHALLENGES = 1000;
/** Wrong operator secrets one passkey sign-in may give on /account before that sign-in is ended. */
export const WRONG_SECRETS_PER_SIGN_IN = 5;
/** The cookie of an account session: `platform_account=xas_…`, HttpOnly, SameSite=Strict. */
export const ACCOUNT_COOKIE = 'platform_account';

/** The stable codes of every refusal of an account route (JSON `error.code`, or the page's `data-code`). */
export type AccountErrorCode =
  | 'invalid_request'
  | 'foreign_origin'
  | 'rate_limited'
  | 'name_invalid'
  | 'name_taken'
  | 'challenge_unknown'
  | 'challenge_expired'
  | 'verification_failed'
  | 'passkey_taken'
  | 'passkey_unknown'
  | 'counter_regressed'
  | 'not_signed_in'
  | 'not_builder'
  | 'wrong_secret'
  | 'secret_attempts_exhausted';

export interface Refusal {
  ok: false;
  status: number;
  code: AccountErrorCode;
  message: string;
  retryAt?: number;
}

const refusal = (status: number, code: AccountErrorCode, message: string, retryAt?: number): Refusal => ({ ok: false, status, code, message, ...(retryAt !== undefined ? { retryAt } : {}) });

/** An account, as a session sees it. */
export interface Account {
  id: string;
  name: string;
  /** The builder it is (bld_…), once granted. */
  builderId?: string;
  builderSince?: number;
}

/** A signed-in browser: its account and the hash of its session token. */
export interface AccountSession {
  account: Account;
  sessionHash: string;
}

export interface PasskeyInfo {
  credentialId: string;
  createdAt: number;
  lastUsedAt?: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
}

/** A ceremony's answer: its session token (a new sign-in) and the account. */
export interface SignedIn {
  ok: true;
  account: Account;
  token: string;
}

interface Challenge {
  ceremony: 'registration' | 'authentication';
  expiresAt: number;
  /** Registration of a new account: the name and user handle it will have. */
  name?: string;
  userHandle?: string;
  /** A passkey added to an existing account, by the session that asked. */
  accountId?: string;
  sessionHash?: string;
}

const sessionToken = () => `xas_${randomBytes(32).toString('base64url')}`;

function accountOf(row: Row): Account {
  return {
    id: String(row.id),
    name: String(row.name),
    ...(row.builderId ? { builderId: String(row.builderId) } : {}),
    ...(row.builderSince !== null && row.builderSince !== undefined ? { builderSince: Number(row.builderSince) } : {}),
  };
}

/** The challenge a ceremony's response answers, read from its clientDataJSON; undefined when that is not readable. */
function challengeOf(response: unknown): string | undefined {
  const data = (response as { response?: { clientDataJSON?: unknown } } | undefined)?.response?.clientDataJSON;
  if (typeof data !== 'string') return undefined;
  try {
    const challenge = decodeClientDataJSON(data).challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Accounts {
  readonly #ctx: Context;
  /** Accounts, their passkeys and account sessions (account-records.ts), over the context's records. */
  readonly #records: AccountRecords;
  readonly #challenges = new Map<string, Challenge>();
  readonly #ceremonies = new RateLimit(CEREMONIES_PER_MINUTE, 60_000);
  /** Wrong operator secrets given on /account, per account session (its token hash). */
  readonly #wrongSecrets = new Map<string, number>();

  constructor(ctx: Context) {
    this.#ctx = ctx;
    this.#records = accountRecords(ctx.records);
  }

  /** The relying party: the public origin's hostname (read each time: a port-0 start learns its origin late). */
  get rpID(): string {
    return new URL(this.#ctx.publicOrigin).hostname;
  }

  /** Counts a ceremony for the address, forgets expired challenges and bounds the waiting ones. */
  #admit(address: string): Refusal | undefined {
    const now = this.#ctx.now();
    for (const [challenge, waiting] of this.#challenges) if (waiting.expiresAt < now) this.#challenges.delete(challenge);
    const limited = this.#ceremonies.take(address, now);
    if (limited) return refusal(429, 'rate_limited', `At most ${CEREMONIES_PER_MINUTE} passkey ceremonies a minute may be started from one address; the next is allowed at ${new Date(limited.retryAt).toISOString()}.`, limited.retryAt);
    if (this.#challenges.size >= MAX_PENDING_CHALLENGES) {
      const retryAt = Math.min(...[...this.#challenges.values()].map((c) => c.expiresAt)) + 1;
      return refusal(429, 'rate_limited', `${MAX_PENDING_CHALLENGES} passkey ceremonies are waiting for an answer; the next is allowed at ${new Date(retryAt).toISOString()}.`, retryAt);
    }
    return undefined;
  }

  /** Takes the challenge a response answers: once only, for its own ceremony, before it expires. */
  #take(response: unknown, ceremony: Challenge['ceremony']): { challenge: string; waiting: Challenge } | Refusal {
    const challenge = challengeOf(response);
    if (challenge === undefined) return refusal(400, 'invalid_request', 'Send {"response": …}: the passkey\'s answer as @simplewebauthn/browser gives it.');
    const waiting = this.#challenges.get(challenge);
    if (!waiting || waiting.ceremony !== ceremony) return refusal(400, 'challenge_unknown', 'This answer is for a challenge this control plane did not give, or one already used: start again.');
    this.#challenges.delete(challenge);
    if (this.#ctx.now() > waiting.expiresAt) return refusal(400, 'challenge_expired', `The challenge expired (a ceremony must be answered within ${CHALLENGE_TTL_MS / 60_000} minutes): start again.`);
    return { challenge, waiting };
  }

  /** Options to create a passkey: for a new account named `name`, or (signed in) another passkey of one's own account. */
  async registrationOptions(address: string, request: { name?: unknown; session?: AccountSession }): Promise<{ ok: true; options: PublicKeyCredentialCreationOptionsJSON } | Refusal> {
    // Counted first, so that asking whether names are taken is bounded like any ceremony.
    const refused = this.#admit(address);
    if (refused) return refused;
    let name: string;
    let userHandle: string;
    let exclude: { id: string; transports?: string[] }[] = [];
    if (request.session) {
      const account = (await this.#records.accounts.nameAndHandle(request.session.account.id))!;
      name = String(account.name);
      userHandle = String(account.userHandle);
      exclude = (await this.#records.passkeys.credentialsOf(request.session.account.id)).map((row) => ({ id: String(row.credentialId), transports: JSON.parse(String(row.transports)) as string[] }));
    } else {
      if (typeof request.name !== 'string' || !ACCOUNT_NAME.test(request.name)) return refusal(400, 'name_invalid', 'A name is 2 to 32 lowercase letters, digits or dashes, starting with a letter.');
      name = request.name;
      if (await this.#records.accounts.nameTaken(name)) return refusal(409, 'name_taken', `There is already an account named ${name}: sign in with its passkey, or choose another name.`);
      userHandle = isoBase64URL.fromBuffer(randomBytes(32));
    }
    const options = await generateRegistrationOptions({
      rpName: 'Platform control plane',
      rpID: this.rpID,
      userName: name,
      userID: isoBase64URL.toBuffer(userHandle),
      timeout: CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: exclude,
      // Discoverable, so signing in needs no name typed; user verification when the authenticator can.
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    });
    this.#challenges.set(options.challenge, {
      ceremony: 'registration',
      expiresAt: this.#ctx.now() + CHALLENGE_TTL_MS,
      ...(request.session ? { accountId: request.session.account.id, sessionHash: request.session.sessionHash } : { name, userHandle }),
    });
    return { ok: true, options };
  }

  /** Verifies a new passkey: makes the account (signed in) or adds the passkey to the signed-in account. */
  async verifyRegistration(response: unknown, session: AccountSession | undefined): Promise<SignedIn | { ok: true; account: Account; token?: undefined } | Refusal> {
    const taken = this.#take(response, 'registration');
    if ('status' in taken) return taken;
    const { challenge, waiting } = taken;
    if (waiting.accountId && waiting.sessionHash !== session?.sessionHash) return refusal(401, 'not_signed_in', 'A passkey is added to an account by the signed-in browser that asked for it.');
    let verified;
    try {
      verified = await verifyRegistrationResponse({ response: response as RegistrationResponseJSON, expectedChallenge: challenge, expectedOrigin: this.#ctx.publicOrigin, expectedRPID: this.rpID, requireUserVerification: false });
    } catch (error) {
      return refusal(400, 'verification_failed', `The passkey could not be verified: ${reason(error)}`);
    }
    if (!verified.verified) return refusal(400, 'verification_failed', 'The passkey could not be verified.');
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const { records } = this.#ctx;
    const now = this.#ctx.now();
    const store = (accountId: string) =>
      this.#records.passkeys.insert({
        credentialId: credential.id,
        accountId,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? []),
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp ? 1 : 0,
        createdAt: now,
      });
    // Checked and written in one transaction: of two registrations racing for a passkey or a name, one wins and the other is told.
    return records.transaction(async () => {
      if (await this.#records.passkeys.exists(credential.id)) return refusal(409, 'passkey_taken', 'This passkey is already registered here.');
      if (waiting.accountId) {
        await store(waiting.accountId);
        return { ok: true as const, account: (await this.#account(waiting.accountId))! };
      }
      if (await this.#records.accounts.nameTaken(waiting.name!)) return refusal(409, 'name_taken', `There is already an account named ${waiting.name}: choose another name.`);
      const id = newId('acc');
      const token = sessionToken();
      await this.#records.accounts.insert({ id, name: waiting.name!, userHandle: waiting.userHandle!, createdAt: now });
      await store(id);
      await this.#startSession(id, token, now);
      return { ok: true as const, account: (await this.#account(id))!, token };
    });
  }

  /** Options to sign in with any passkey of this control plane (discoverable: no name is asked). */
  async authenticationOptions(address: string): Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | Refusal> {
    const refused = this.#admit(address);
    if (refused) return refused;
    const options = await generateAuthenticationOptions({ rpID: this.rpID, timeout: CHALLENGE_TTL_MS, userVerification: 'preferred', allowCredentials: [] });
    this.#challenges.set(options.challenge, { ceremony: 'authentication', expiresAt: this.#ctx.now() + CHALLENGE_TTL_MS });
    return { ok: true, options };
  }

  /** Verifies a passkey's assertion (signature, challenge, origin, rpID, counter) and signs the browser in. */
  async verifyAuthentication(response: unknown): Promise<SignedIn | Refusal> {
    const taken = this.#take(response, 'authentication');
    if ('status' in taken) return taken;
    const answer = response as AuthenticationResponseJSON;
    const { records } = this.#ctx;
    const passkey = typeof answer.id === 'string' ? (await this.#records.passkeys.get(answer.id)) : undefined;
    if (!passkey) return refusal(401, 'passkey_unknown', 'This passkey is not registered on this control plane: create an account, or use another passkey.');
    const owner = (await this.#records.accounts.get(String(passkey.accountId)))!;
    const handle = answer.response?.userHandle;
    if (handle !== undefined && handle !== owner.userHandle) return refusal(401, 'verification_failed', 'The passkey names another account than the one it was registered for.');
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response: answer,
        expectedChallenge: taken.challenge,
        expectedOrigin: this.#ctx.publicOrigin,
        expectedRPID: this.rpID,
        // The counter is checked below, once the signature is known to be good, so that a counter gone
        // backwards has its own answer (a cloned authenticator) rather than a generic failure.
        credential: { id: String(passkey.credentialId), publicKey: isoBase64URL.toBuffer(String(passkey.publicKey)), counter: 0, transports: JSON.parse(String(passkey.transports)) as string[] },
        requireUserVerification: false,
      });
    } catch (error) {
      return refusal(401, 'verification_failed', `The passkey's answer could not be verified: ${reason(error)}`);
    }
    if (!verified.verified) return refusal(401, 'verification_failed', "The passkey's signature does not verify.");
    const stored = Number(passkey.counter);
    const counter = verified.authenticationInfo.newCounter;
    // Authenticators that keep no counter always send 0; one that keeps it must move it forward.
    if ((counter > 0 || stored > 0) && counter <= stored) {
      return refusal(401, 'counter_regressed', `The passkey's signature counter went from ${stored} to ${counter}: it may have been copied. Sign in with another passkey.`);
    }
    const now = this.#ctx.now();
    const token = sessionToken();
    await records.transaction(async () => {
      await this.#records.passkeys.recordUse(String(passkey.credentialId), counter, now);
      await this.#startSession(String(owner.id), token, now);
    });
    return { ok: true, account: accountOf(owner), token };
  }

  async #startSession(accountId: string, token: string, now: number): Promise<void> {
    await this.#records.accountSessions.removeExpired(now);
    await this.#records.accountSessions.insert(hashToken(token), accountId, now, now + ACCOUNT_SESSION_TTL_MS);
  }

  async #account(id: string): Promise<Account | undefined> {
    const row = await this.#records.accounts.get(id);
    return row ? accountOf(row) : undefined;
  }

  /** The signed-in account of a request (its cookie), while its session lives. */
  async session(request: Request): Promise<AccountSession | undefined> {
    const token = cookie(request, ACCOUNT_COOKIE);
    if (!token || !token.startsWith('xas_')) return undefined;
    const sessionHash = hashToken(token);
    const row = await this.#records.accountSessions.live(sessionHash, this.#ctx.now());
    return row ? { account: accountOf(row), sessionHash } : undefined;
  }

  /** Ends a session. */
  async signOut(session: AccountSession): Promise<void> {
    await this.#records.accountSessions.revoke(session.sessionHash, this.#ctx.now());
    this.#wrongSecrets.delete(session.sessionHash);
  }

  async passkeys(accountId: string): Promise<PasskeyInfo[]> {
    return (await this.#records.passkeys.ofAccount(accountId)).map((row) => ({
      credentialId: String(row.credentialId),
      createdAt: Number(row.createdAt),
      ...(row.lastUsedAt !== null && row.lastUsedAt !== undefined ? { lastUsedAt: Number(row.lastUsedAt) } : {}),
      transports: JSON.parse(String(row.transports)) as string[],
      deviceType: String(row.deviceType),
      backedUp: Number(row.backedUp) === 1,
    }));
  }

  /** Whether any account is a builder yet (the account page says how the first one is made). */
  hasBuilder(): Promise<boolean> {
    return this.#records.accounts.anyBuilder();
  }

  /**
   * Grants builder status from /account with the operator secret. Wrong secrets are counted per passkey
   * sign-in: the WRONG_SECRETS_PER_SIGN_IN-th ends it (the person signs in with the passkey again).
   */
  async grantWithSecret(session: AccountSession, secret: string): Promise<{ ok: true; account: Account } | Refusal> {
    if (session.account.builderId) return { ok: true, account: session.account };
    if (!sameSecret(secret, this.#ctx.secrets.operatorSecret)) {
      const wrong = (this.#wrongSecrets.get(session.sessionHash) ?? 0) + 1;
      this.#wrongSecrets.set(session.sessionHash, wrong);
      if (wrong >= WRONG_SECRETS_PER_SIGN_IN) {
        await this.signOut(session);
        return refusal(429, 'secret_attempts_exhausted', `${WRONG_SECRETS_PER_SIGN_IN} wrong operator secrets were given in this sign-in, so it was ended: sign in with your passkey again to try again.`);
      }
      return refusal(403, 'wrong_secret', `The operator secret is wrong (${WRONG_SECRETS_PER_SIGN_IN - wrong} tries left in this sign-in). The control plane printed it when it started.`);
    }
    this.#wrongSecrets.delete(session.sessionHash);
    return { ok: true, account: await this.grant(session.account.id) };
  }

  /**
   * Makes an account a builder (the caller checked the operator secret). A builder of the same name
   * from before accounts (signed in by name and secret) is claimed, so its apps stay its own; else a
   * new builder (bld_…) is made.
   */
  async grant(accountId: string): Promise<Account> {
    const { records } = this.#ctx;
    await records.transaction(async () => {
      const account = (await this.#records.accounts.get(accountId))!;
      if (account.builderId) return;
      const now = this.#ctx.now();
      let builderId = await this.#ctx.builders.builders.unclaimedNamed(String(account.name));
      if (!builderId) {
        builderId = newId('bld');
        await this.#ctx.builders.builders.insert(builderId, String(account.name), now);
      }
      await this.#records.accounts.setBuilder(accountId, builderId, now);
    });
    return (await this.#account(accountId))!;
  }

  /** The Set-Cookie value that signs a browser in with `token`, or (without one) signs it out. */
  cookie(token: string | undefined): string {
    const secure = new URL(this.#ctx.publicOrigin).protocol === 'https:' ? '; Secure' : '';
    return token
      ? `${ACCOUNT_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${ACCOUNT_SESSION_TTL_MS / 1000}${secure}`
      : `${ACCOUNT_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
  }
}

/** A cookie's value in a request's Cookie header. */
function cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

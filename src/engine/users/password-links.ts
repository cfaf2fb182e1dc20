// How people without a (remembered) password get in with the built-in identity provider: a
// one-time link in the invitation, and "forgot password" sending the same kind of link. Setting
// the password ends every session of the account; the door then starts the one of the browser
// that set it (the link proved the mailbox, the new password the person).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { tx, type Db } from '../db/index.js';
import { gone, notFound, type EngineError } from '../errors.js';
import {
  createLink,
  readLink,
  useLink,
  type LinkPurpose,
  type LinkState,
} from '../identity/password-link-store.js';
import { hashPassword } from '../identity/passwords.js';
import { takeQuota, type QuotaDecision } from '../limits/counters.js';
import type { InvitationSignIn } from '../mail/invitation.js';
import type { Mailer } from '../mail/mailer.js';
import { passwordLinkMessage } from '../mail/password-link.js';
import { normalizeEmail } from '../orgs/orgs.js';
import { checkPasswordPolicy, type Accounts } from './accounts.js';

export const SET_PASSWORD_PATH = '/auth/password/set';
export const FORGOT_PASSWORD_PATH = '/auth/password/forgot';

const HOUR_MS = 3_600_000;
/** "Forgot password" mails one account may be sent per hour, whoever asks. */
export const RESETS_PER_HOUR_PER_ACCOUNT = 3;

const GONE_MESSAGES = {
  expired: 'this password link has expired',
  used: 'this password link was already used',
  replaced: 'a newer password link was sent for this account; use the newest e-mail',
  password_set: 'the password of this account was set since this link was sent',
} as const;

export class PasswordLinks {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
    private readonly mailer: Mailer,
    private readonly log: Logger,
    private readonly config: Pick<Config, 'siteUrl' | 'auth' | 'passwordLinks'>,
  ) {}

  get builtin(): boolean {
    return this.config.auth.builtin;
  }

  get ttlHours(): number {
    return this.config.passwordLinks.ttlHours;
  }

  /**
   * What an invitation to `email` says about signing in; issues a link when they need one.
   * `next`: the app path the link leads to once the password is set (the project's page).
   */
  async invitationSignIn(email: string, next?: string): Promise<InvitationSignIn> {
    if (!this.builtin) return { kind: 'external', issuer: this.config.auth.issuer };
    if (await this.accounts.hasPassword(email))
      return { kind: 'password', forgotUrl: this.url(FORGOT_PASSWORD_PATH) };
    const link = await this.issue(email, 'invite');
    const url = next ? `${link.url}&next=${encodeURIComponent(next)}` : link.url;
    return { kind: 'set-password', url, expires: link.expires };
  }

  /**
   * "Forgot password": mails a link when `rawEmail` is an account. Whether it is one shows
   * nowhere: the same rate limits apply and the mail leaves after the answer either way.
   */
  async requestReset(rawEmail: string, clientAddress: string): Promise<QuotaDecision> {
    this.requireBuiltin();
    const email = normalizeEmail(rawEmail);
    const decision = await takeQuota(this.db, [
      {
        rule: {
          name: 'password_reset_address',
          limit: this.config.passwordLinks.resetsPerHourPerAddress,
          windowMs: HOUR_MS,
        },
        subject: clientAddress,
      },
      {
        rule: {
          name: 'password_reset_account',
          limit: RESETS_PER_HOUR_PER_ACCOUNT,
          windowMs: HOUR_MS,
        },
        subject: email,
      },
    ]);
    if (decision.ok && (await this.accounts.exists(email))) this.background(this.mailReset(email));
    return decision;
  }

  /** The account and purpose of a usable link; 404 unknown, 410 expired or used up. */
  async inspect(token: string): Promise<{ email: string; purpose: LinkPurpose; expires: string }> {
    this.requireBuiltin();
    return okOrThrow(await readLink(this.db, token));
  }

  /** Sets the password the link is for, once; ends the account's sessions and other links. */
  async setPassword(token: string, password: string): Promise<{ email: string }> {
    this.requireBuiltin();
    checkPasswordPolicy(password);
    // Checked before hashing so a dead link fails fast, and again in the transaction below.
    okOrThrow(await readLink(this.db, token));
    const hash = await hashPassword(password);
    return tx(this.db, async () => {
      const link = okOrThrow(await useLink(this.db, token));
      await this.accounts.storeHash(link.email, hash);
      return { email: link.email };
    });
  }

  /** Resolves once every mail sent in the background has left (or failed). */
  async idle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async issue(
    email: string,
    purpose: LinkPurpose,
  ): Promise<{ url: string; expires: Date }> {
    const { token, expires } = await createLink(this.db, email, purpose, this.ttlHours * HOUR_MS);
    return { url: `${this.url(SET_PASSWORD_PATH)}?token=${token}`, expires };
  }

  private async mailReset(email: string): Promise<void> {
    // After the answer has gone out: writing the link must not make it slower for accounts.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      const link = await this.issue(email, 'reset');
      const msg = passwordLinkMessage({
        to: email,
        url: link.url,
        expires: link.expires,
        loginUrl: this.url('/auth/login'),
      });
      await this.mailer.send({ to: email, ...msg });
    } catch (err) {
      // Nobody waits for this answer: the log is where a failure shows.
      this.log.error({ err: (err as Error).message }, 'could not send a password link');
    }
  }

  private background(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** 404 naming the external identity provider when passwords are not ours to manage. */
  requireBuiltin(): void {
    if (!this.builtin)
      throw notFound(
        `passwords are managed by the external identity provider ${this.config.auth.issuer}; sign in there`,
        { issuer: this.config.auth.issuer },
      );
  }

  private url(p: string): string {
    return `${this.config.siteUrl}${p}`;
  }
}

function okOrThrow(state: LinkState): { email: string; purpose: LinkPurpose; expires: string } {
  if (state.ok) return state;
  throw linkError(state.reason);
}

function linkError(reason: Exclude<LinkState, { ok: true }>['reason']): EngineError {
  const again = `ask for a new one at ${FORGOT_PASSWORD_PATH}`;
  if (reason === 'unknown')
    return notFound(`this password link is not valid (mistyped, or too old); ${again}`, {
      reason,
      forgot: FORGOT_PASSWORD_PATH,
    });
  return gone(`${GONE_MESSAGES[reason]}; ${again}`, { reason, forgot: FORGOT_PASSWORD_PATH });
}

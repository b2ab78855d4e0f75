/**
 * The visitor's session and the sign-in's `state`, each in one cookie the server alone can read:
 * the value is encrypted (AES-256-GCM) and signed (HMAC-SHA256, compared in constant time), with keys
 * derived from `TASKGATE_SESSION_SECRET`, and it carries its own expiry. Replicas share nothing but
 * the secret. The cookies are HttpOnly and SameSite=Lax, and Secure when the public URL is https.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** What a cookie is for; a value sealed for one purpose never opens as another. */
export type Purpose = "session" | "state";

/** A session lasts at most this long (GitHub's user tokens of an App expire after 8 hours too). */
export const SESSION_SECONDS = 8 * 60 * 60;
/** The sign-in's `state` is good for this long. */
export const STATE_SECONDS = 10 * 60;

export interface Session {
  /** The visitor's OAuth token (a user-to-server token of the App). */
  readonly token: string;
}

export interface SignInState {
  readonly state: string;
  /** Where to go after signing in: a path under /taskgate/. */
  readonly next: string;
}

interface Keys {
  readonly encrypt: Buffer;
  readonly sign: Buffer;
}

function keysOf(secret: string): Keys {
  const derive = (info: string) => Buffer.from(hkdfSync("sha256", secret, "taskgate pages", info, 32));
  return { encrypt: derive("cookie encryption"), sign: derive("cookie signature") };
}

/** Seals values for cookies with one secret. */
export class Sealer {
  private readonly keys: Keys;

  constructor(
    secret: string,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.keys = keysOf(secret);
  }

  /** `iv.ciphertext.tag.signature`, base64url; the expiry travels inside. */
  seal(purpose: Purpose, value: object, seconds: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keys.encrypt, iv);
    cipher.setAAD(Buffer.from(purpose));
    const plain = JSON.stringify({ value, exp: Math.floor(this.now() / 1000) + seconds });
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    const sealed = [iv, body, cipher.getAuthTag()].map((part) => part.toString("base64url")).join(".");
    return `${sealed}.${this.signature(purpose, sealed)}`;
  }

  /** The value, or undefined when the cookie is forged, altered, sealed for another purpose or expired. */
  open<T>(purpose: Purpose, cookie: string | undefined): T | undefined {
    const parts = cookie?.split(".");
    if (parts?.length !== 4) return undefined;
    const sealed = parts.slice(0, 3).join(".");
    const given = Buffer.from(parts[3]!, "base64url");
    const expected = Buffer.from(this.signature(purpose, sealed), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const [iv, body, tag] = parts.slice(0, 3).map((part) => Buffer.from(part, "base64url"));
      const decipher = createDecipheriv("aes-256-gcm", this.keys.encrypt, iv!);
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(tag!);
      const plain = Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8");
      const { value, exp } = JSON.parse(plain) as { value: T; exp: number };
      return typeof exp === "number" && exp * 1000 > this.now() ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private signature(purpose: Purpose, sealed: string): string {
    return createHmac("sha256", this.keys.sign).update(`${purpose}.${sealed}`).digest("base64url");
  }
}

/** Compares two strings in constant time (for their length, which is not secret). */
export function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The cookie's name: with `Secure`, the `__Host-` prefix, so no other host or path may set it. */
export function cookieName(purpose: Purpose, secure: boolean): string {
  return `${secure ? "__Host-" : ""}taskgate-${purpose}`;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure over https; `seconds: 0` clears it. */
export function setCookie(purpose: Purpose, value: string, seconds: number, secure: boolean): string {
  return [
    `${cookieName(purpose, secure)}=${value}`,
    "Path=/",
    `Max-Age=${seconds}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The value of one cookie of a request. */
export function readCookie(request: IncomingMessage, purpose: Purpose, secure: boolean): string | undefined {
  const name = cookieName(purpose, secure);
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

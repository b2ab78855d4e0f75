/**
 * The pages' routes under /taskgate/, beside the webhooks: sign-in (`login`, `callback`), `logout`,
 * and the pages of a repository and of a pull request, each shown only to a visitor GitHub lets
 * read the repository. Without the pages' settings every route answers 503 and shows nothing.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Octokit } from "../../github/api.js";
import { AccessCheck, AccessUnknownError } from "./access.js";
import type { PagesConfig, PagesSetup } from "./config.js";
import { NOT_FOUND, message, redirect, send, type Reply } from "./http.js";
import { NO_NEXT, authorizeUrl, exchangeCode, safeNext } from "./oauth.js";
import type { PageKind, PageRenderer } from "./render.js";
import {
  SESSION_SECONDS,
  STATE_SECONDS,
  Sealer,
  readCookie,
  sameString,
  setCookie,
  type Session,
  type SignInState,
} from "./session.js";

/** The App's installation on a repository, or undefined when the App is not installed there. */
export type InstallationOf = (owner: string, repo: string) => Promise<{ octokit: Octokit; appId: number } | undefined>;

export interface PagesDeps {
  readonly setup: PagesSetup;
  readonly renderer: PageRenderer;
  readonly installation: InstallationOf;
  readonly log: { error(message: string): void };
  /** The clock (tests move it). */
  readonly now?: () => number;
}

const OWNER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const NUMBER = /^[1-9][0-9]{0,9}$/;
const ASSET = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

export type Route =
  | { readonly name: "home" | "login" | "callback" | "logout" }
  | { readonly name: "asset"; readonly asset: string }
  | { readonly name: "page"; readonly kind: PageKind; readonly owner: string; readonly repo: string; number?: number }
  | { readonly name: "none" };

/** The route of a raw path under /taskgate/; anything encoded, or not matching a pattern, is `none`. */
export function routeOf(path: string): Route {
  if (/[%\\]/.test(path)) return { name: "none" };
  const parts = path.split("/").slice(2);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "")) return { name: "home" };
  const [first, second, third, fourth] = parts;
  if (parts.length === 1 && (first === "login" || first === "callback" || first === "logout")) return { name: first };
  if (parts.length === 2 && first === "-" && ASSET.test(second!)) return { name: "asset", asset: second! };
  if (parts.length !== 2 && parts.length !== 4) return { name: "none" };
  if (!OWNER.test(first!) || !REPO.test(second!) || second === "." || second === "..") return { name: "none" };
  if (parts.length === 2) return { name: "page", kind: "repository", owner: first!, repo: second! };
  if (third !== "pull" || !NUMBER.test(fourth!)) return { name: "none" };
  return { name: "page", kind: "pull", owner: first!, repo: second!, number: Number(fourth) };
}

interface Visit {
  readonly request: IncomingMessage;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly search: string;
}

class Pages {
  private readonly sealer: Sealer;
  private readonly access: AccessCheck;

  constructor(
    private readonly config: PagesConfig,
    private readonly deps: PagesDeps,
  ) {
    this.sealer = new Sealer(config.sessionSecret, deps.now);
    this.access = new AccessCheck(config.apiUrl, deps.now);
  }

  async answer(visit: Visit): Promise<Reply> {
    const route = routeOf(visit.path);
    const method = visit.request.method ?? "GET";
    if (route.name === "logout" && method === "POST") return this.logout();
    if (method !== "GET" && method !== "HEAD") return message(405, "Method not allowed", "The pages only read.");
    switch (route.name) {
      case "login":
        return this.login(visit.query.get("next"));
      case "callback":
        return this.callback(visit);
      case "logout":
        return this.logout();
      case "home":
        return this.session(visit.request)
          ? message(
              200,
              "taskgate",
              "You are signed in. A repository's page is at /taskgate/&lt;owner&gt;/&lt;repo&gt;.",
            )
          : this.toLogin(visit);
      case "asset":
        return this.asset(route.asset);
      case "page":
        return this.page(visit, route);
      default:
        return NOT_FOUND;
    }
  }

  private session(request: IncomingMessage): Session | undefined {
    const session = this.sealer.open<Session>("session", readCookie(request, "session", this.config.secure));
    return typeof session?.token === "string" ? session : undefined;
  }

  private toLogin(visit: Visit, cookies?: readonly string[]): Reply {
    const next = safeNext(`${visit.path}${visit.search}`) ?? safeNext(visit.path) ?? NO_NEXT;
    return redirect(`${this.config.url}/taskgate/login?next=${encodeURIComponent(next)}`, cookies);
  }

  private login(next: string | null): Reply {
    const state = randomBytes(32).toString("base64url");
    const sealed = this.sealer.seal("state", { state, next: safeNext(next) ?? NO_NEXT }, STATE_SECONDS);
    return redirect(authorizeUrl(this.config, state), [setCookie("state", sealed, STATE_SECONDS, this.config.secure)]);
  }

  private async callback(visit: Visit): Promise<Reply> {
    const clearState = setCookie("state", "", 0, this.config.secure);
    const signIn = this.sealer.open<SignInState>("state", readCookie(visit.request, "state", this.config.secure));
    const given = visit.query.get("state");
    const code = visit.query.get("code");
    if (!signIn || !given || typeof signIn.state !== "string" || !sameString(given, signIn.state) || !code) {
      return message(400, "Sign-in refused", "The sign-in could not be verified. Start again.", [clearState]);
    }
    const token = await exchangeCode(this.config, code);
    if (!token) return message(400, "Sign-in refused", "GitHub did not accept the sign-in. Start again.", [clearState]);
    const seconds = Math.min(SESSION_SECONDS, token.expiresIn ?? SESSION_SECONDS);
    const session = this.sealer.seal("session", { token: token.token } satisfies Session, seconds);
    const next = safeNext(signIn.next) ?? NO_NEXT;
    return redirect(`${this.config.url}${next}`, [
      clearState,
      setCookie("session", session, seconds, this.config.secure),
    ]);
  }

  private logout(): Reply {
    return message(200, "Signed out", "You are signed out of taskgate's pages.", [
      setCookie("session", "", 0, this.config.secure),
    ]);
  }

  private asset(name: string): Reply {
    const asset = this.deps.renderer.asset?.(name);
    return asset ? { status: 200, body: asset.body, type: asset.type } : NOT_FOUND;
  }

  private async page(visit: Visit, route: Extract<Route, { name: "page" }>): Promise<Reply> {
    const session = this.session(visit.request);
    if (!session) return this.toLogin(visit);
    const access = await this.access.check(session.token, route.owner, route.repo);
    if (access === "signed-out") return this.toLogin(visit, [setCookie("session", "", 0, this.config.secure)]);
    if (access === "denied") return NOT_FOUND;
    const installation = await this.deps.installation(route.owner, route.repo);
    if (!installation) return NOT_FOUND;
    const html = await this.deps.renderer.render(route.kind, {
      owner: route.owner,
      repo: route.repo,
      ...(route.number !== undefined && { number: route.number }),
      query: visit.query,
      octokit: installation.octokit,
      appId: installation.appId,
      baseUrl: this.config.url,
    });
    return html === undefined ? NOT_FOUND : { status: 200, body: html };
  }
}

const OFF: Reply = message(503, "Pages not configured", "This server does not serve taskgate's pages.");

/**
 * The request handler of the pages: answers every path under /taskgate/ (true), leaves every other
 * path to the next handler (false).
 */
export function pagesHandler(
  deps: PagesDeps,
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const pages = deps.setup.on ? new Pages(deps.setup.config, deps) : undefined;
  return async (request, response) => {
    const url = request.url ?? "/";
    const at = url.indexOf("?");
    const path = at < 0 ? url : url.slice(0, at);
    if (path !== "/taskgate" && !path.startsWith("/taskgate/")) return false;
    const search = at < 0 ? "" : url.slice(at);
    try {
      send(response, pages ? await pages.answer({ request, path, search, query: new URLSearchParams(search) }) : OFF);
    } catch (error) {
      const unknown = error instanceof AccessUnknownError;
      deps.log.error(`taskgate: page ${path}: ${(error as Error).message ?? String(error)}`);
      send(
        response,
        unknown
          ? message(502, "GitHub did not answer", "Try again in a moment.")
          : message(500, "Error", "The page failed."),
      );
    }
    return true;
  };
}

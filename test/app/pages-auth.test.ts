/**
 * The pages' sign-in, session and access check, over HTTP on this machine, with GitHub's OAuth web
 * flow and API faked behind nock: who signs in, who may see a repository's page, and what every
 * other visitor gets (a 404 with no task data, a refusal, a redirect to sign in).
 */
import { request as httpRequest, type Server } from "node:http";
import nock from "nock";
import { pino } from "pino";
import { Probot, createNodeMiddleware } from "probot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { taskgateApp } from "../../src/app/index.js";
import { TaskgateOctokit } from "../../src/app/octokit.js";
import { pagesSetup } from "../../src/app/pages/config.js";
import { CONTENT_SECURITY_POLICY } from "../../src/app/pages/http.js";
import { safeNext } from "../../src/app/pages/oauth.js";
import type { PageInput, PageKind, PageRenderer } from "../../src/app/pages/render.js";
import { Sealer } from "../../src/app/pages/session.js";
import { registeredManifest } from "../../src/app/setup.js";
import { WEB, privateKey, type FakeGitHub } from "../helpers/fake-github.js";
import { appSandbox, awaitingApproval, example } from "../helpers/probot.js";
import { localServer } from "../helpers/pages.js";

const sandbox = appSandbox();
beforeEach(() => nock.enableNetConnect("127.0.0.1"));

const SECRET = "a session secret of at least thirty-two characters";
const DATA = "TASK-DATA: the secret plan";

/** A renderer that shows task data, and remembers what it was asked. */
function spyRenderer(): PageRenderer & { calls: { kind: PageKind; input: PageInput }[] } {
  const calls: { kind: PageKind; input: PageInput }[] = [];
  return {
    calls,
    render(kind, input) {
      calls.push({ kind, input });
      return Promise.resolve(`<!doctype html><p>${DATA} ${input.owner}/${input.repo} ${input.number ?? ""}</p>`);
    },
  };
}

interface Running {
  readonly url: string;
  readonly lines: string[];
  readonly renderer: ReturnType<typeof spyRenderer>;
}

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function probotWith(lines: string[]): Probot {
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  return new Probot({
    appId: 1,
    privateKey: privateKey(),
    log,
    Octokit: TaskgateOctokit.defaults((defaults: object) => ({
      ...defaults,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
}

/** The App's middleware on 127.0.0.1, with the pages' settings (`TASKGATE_URL` is its own address). */
async function serve(fake: FakeGitHub, env: Record<string, string | undefined> = {}): Promise<Running> {
  const { url, served } = await localServer(servers);
  const lines: string[] = [];
  const renderer = spyRenderer();
  const settings = {
    TASKGATE_URL: url,
    GITHUB_CLIENT_ID: fake.oauth.clientId,
    GITHUB_CLIENT_SECRET: fake.oauth.clientSecret,
    TASKGATE_SESSION_SECRET: SECRET,
    ...env,
  };
  served.handler = await createNodeMiddleware(taskgateApp({ env: settings, renderer }), { probot: probotWith(lines) });
  return { url, lines, renderer };
}

/** A browser's cookies: what the server set, sent back. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly setCookies: string[] = [];

  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(cookie && { cookie }), ...(init.headers as Record<string, string>) },
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(at + 1));
    }
    return response;
  }

  /** Signs in through GitHub's authorize page; the answer of the callback. */
  async signIn(base: string, next = "/taskgate/acme/web"): Promise<Response> {
    const login = await this.get(`${base}/taskgate/login?next=${encodeURIComponent(next)}`);
    expect(login.status).toBe(302);
    const authorize = await this.get(login.headers.get("location")!);
    expect(authorize.status).toBe(302);
    return this.get(authorize.headers.get("location")!);
  }
}

/** A raw request (fetch would normalize the path). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, method: "GET" }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    request.on("error", reject);
    request.end();
  });
}

const asked = (fake: FakeGitHub, path: string) => fake.requests.filter((request) => request.path === path);

describe("signing in with GitHub", () => {
  it("goes to GitHub with the App's client id, the callback and a state, and comes back signed in", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, renderer } = await serve(fake);
    const browser = new Browser();
    const login = await browser.get(`${url}/taskgate/login?next=${encodeURIComponent("/taskgate/acme/web/pull/7")}`);
    const authorize = new URL(login.headers.get("location")!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${WEB}/login/oauth/authorize`);
    expect(authorize.searchParams.get("client_id")).toBe(fake.oauth.clientId);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${url}/taskgate/callback`);
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stateCookie = browser.setCookies.find((line) => line.startsWith("taskgate-state="))!;
    expect(stateCookie).toMatch(/HttpOnly/);
    expect(stateCookie).toMatch(/SameSite=Lax/);
    expect(stateCookie).not.toContain(authorize.searchParams.get("state"));

    const back = await browser.get((await browser.get(authorize.href)).headers.get("location")!);
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe(`${url}/taskgate/acme/web/pull/7`);
    const exchange = asked(fake, "/login/oauth/access_token");
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.body).toMatchObject({ client_id: fake.oauth.clientId, client_secret: fake.oauth.clientSecret });
    const session = browser.setCookies.find((line) => line.startsWith("taskgate-session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Max-Age=28800/);
    expect(session).not.toContain("ghu_dana");
    expect(browser.cookies.has("taskgate-state")).toBe(false);

    const page = await browser.get(`${url}/taskgate/acme/web/pull/7?state=open`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`${DATA} acme/web 7`);
    expect(renderer.calls).toEqual([
      expect.objectContaining({
        kind: "pull",
        input: expect.objectContaining({ owner: "acme", repo: "web", number: 7 }),
      }),
    ]);
    expect(renderer.calls[0]!.input.query.get("state")).toBe("open");
    expect(renderer.calls[0]!.input.appId).toBe(1);
    const access = asked(fake, "/repos/acme/web");
    expect(access).toHaveLength(1);
    expect(access[0]!.headers?.authorization).toBe("Bearer ghu_dana");
    expect(fake.schemaErrors).toEqual([]);
  });

  it("marks its cookies Secure, with the __Host- prefix, when the public URL is https", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake, { TASKGATE_URL: "https://taskgate.example.com" });
    const browser = new Browser();
    const login = await browser.get(`${url}/taskgate/login`);
    expect(new URL(login.headers.get("location")!).searchParams.get("redirect_uri")).toBe(
      "https://taskgate.example.com/taskgate/callback",
    );
    expect(browser.setCookies[0]).toMatch(
      /^__Host-taskgate-state=[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it("refuses a wrong or missing state, and a callback without the sign-in's cookie, before any exchange", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    const browser = new Browser();
    const login = await browser.get(`${url}/taskgate/login`);
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
    for (const query of [`code=c&state=${state}x`, "code=c&state=", "code=c", `code=c&state=${state.slice(1)}`]) {
      const answer = await new Browser().get(`${url}/taskgate/callback?${query}`, {
        headers: { cookie: `taskgate-state=${browser.cookies.get("taskgate-state")}` },
      });
      expect(answer.status, query).toBe(400);
    }
    // The right state, but not this browser's sign-in.
    expect((await new Browser().get(`${url}/taskgate/callback?code=c&state=${state}`)).status).toBe(400);
    expect(asked(fake, "/login/oauth/access_token")).toEqual([]);
    // A code GitHub refuses.
    const refused = await browser.get(`${url}/taskgate/callback?code=nonsense&state=${state}`);
    expect(refused.status).toBe(400);
    expect(browser.cookies.has("taskgate-session")).toBe(false);
  });

  it("sends a visitor only to a path under /taskgate/ of this server after signing in", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    for (const next of ["//evil.example/x", "https://evil.example/taskgate/", "/\\evil.example", "/other"]) {
      const back = await new Browser().signIn(url, next);
      expect(back.headers.get("location"), next).toBe(`${url}/taskgate/`);
    }
    const back = await new Browser().signIn(url, "/taskgate/acme/web?state=open");
    expect(back.headers.get("location")).toBe(`${url}/taskgate/acme/web?state=open`);
  });

  it("logs out by clearing the session", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    expect((await browser.get(`${url}/taskgate/logout`)).status).toBe(200);
    expect(browser.cookies.has("taskgate-session")).toBe(false);
    const page = await browser.get(`${url}/taskgate/acme/web`);
    expect(page.status).toBe(302);
  });
});

describe("the session cookie", () => {
  it("refuses a tampered, forged or misused cookie: the visitor is sent to sign in", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, renderer } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const good = browser.cookies.get("taskgate-session")!;
    const parts = good.split(".");
    const flipped = (part: string) => `${part.slice(0, 5)}${part[5] === "A" ? "B" : "A"}${part.slice(6)}`;
    const forged = [
      [flipped(parts[0]!), ...parts.slice(1)].join("."),
      [parts[0], flipped(parts[1]!), ...parts.slice(2)].join("."),
      [...parts.slice(0, 3), flipped(parts[3]!)].join("."),
      new Sealer("another secret of at least thirty-two characters").seal("session", { token: "ghu_dana" }, 600),
      new Sealer(SECRET).seal("state", { token: "ghu_dana" }, 600),
      "ghu_dana",
    ];
    for (const cookie of forged) {
      const page = await fetch(`${url}/taskgate/acme/web`, {
        redirect: "manual",
        headers: { cookie: `taskgate-session=${cookie}` },
      });
      expect(page.status, cookie).toBe(302);
      expect(page.headers.get("location")).toBe(
        `${url}/taskgate/login?next=${encodeURIComponent("/taskgate/acme/web")}`,
      );
    }
    expect(renderer.calls).toEqual([]);
    expect(asked(fake, "/repos/acme/web")).toEqual([]);
  });

  it("expires with the token GitHub gave, and the visitor signs in again", async () => {
    const fake = awaitingApproval(sandbox.repos);
    fake.oauth.expiresIn = 60;
    const { url } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    expect((await browser.get(`${url}/taskgate/acme/web`)).status).toBe(200);
    const later = Date.now() + 61_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    const page = await browser.get(`${url}/taskgate/acme/web`);
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(/\/taskgate\/login\?next=/);
  });

  it("opens only what it sealed, for its purpose, before its expiry", () => {
    let now = 1_000_000;
    const sealer = new Sealer(SECRET, () => now);
    const sealed = sealer.seal("session", { token: "t" }, 10);
    expect(sealer.open("session", sealed)).toEqual({ token: "t" });
    expect(sealer.open("state", sealed)).toBeUndefined();
    now += 10_000;
    expect(sealer.open("session", sealed)).toBeUndefined();
  });
});

describe("who may see a page", () => {
  it("shows a visitor without access the same 404 as a missing repository, with no task data", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, renderer } = await serve(fake);
    fake.oauth.signInAs = "mallory";
    const mallory = new Browser();
    await mallory.signIn(url);
    const denied = await mallory.get(`${url}/taskgate/acme/web/pull/7`);
    fake.oauth.signInAs = "dana";
    const dana = new Browser();
    await dana.signIn(url);
    const missing = await dana.get(`${url}/taskgate/acme/missing`);
    expect(denied.status).toBe(404);
    expect(missing.status).toBe(404);
    const body = await denied.text();
    expect(body).toBe(await missing.text());
    expect(body).not.toContain("TASK-DATA");
    expect(renderer.calls).toEqual([]);
  });

  it("sends a visitor who is not signed in to sign in, and asks GitHub nothing", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    const page = await fetch(`${url}/taskgate/acme/web/pull/7?state=open`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe(
      `${url}/taskgate/login?next=${encodeURIComponent("/taskgate/acme/web/pull/7?state=open")}`,
    );
    expect(fake.requests).toEqual([]);
  });

  it("asks GitHub once a minute per visitor and repository", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, renderer } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    expect((await browser.get(`${url}/taskgate/acme/web`)).status).toBe(200);
    expect((await browser.get(`${url}/taskgate/acme/web/pull/7`)).status).toBe(200);
    expect(asked(fake, "/repos/acme/web")).toHaveLength(1);
    expect(renderer.calls.map((call) => call.kind)).toEqual(["repository", "pull"]);
    const later = Date.now() + 61_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    expect((await browser.get(`${url}/taskgate/acme/web`)).status).toBe(200);
    expect(asked(fake, "/repos/acme/web")).toHaveLength(2);
  });

  it("ends a session GitHub no longer accepts, and shows nothing when GitHub fails", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, renderer } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    fake.failures.push({ method: "GET", match: /^\/repos\/acme\/web$/, status: 502 });
    const failed = await browser.get(`${url}/taskgate/acme/web`);
    expect(failed.status).toBe(502);
    expect(await failed.text()).not.toContain("TASK-DATA");
    fake.failures.push({ method: "GET", match: /^\/repos\/acme\/web$/, status: 401 });
    const revoked = await browser.get(`${url}/taskgate/acme/web`);
    expect(revoked.status).toBe(302);
    expect(revoked.headers.get("location")).toMatch(/\/taskgate\/login\?next=/);
    expect(browser.cookies.has("taskgate-session")).toBe(false);
    // Neither answer was kept: each view asked GitHub.
    expect(asked(fake, "/repos/acme/web")).toHaveLength(2);
    expect(renderer.calls).toEqual([]);
  });

  it("refuses path tricks before asking GitHub anything", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const before = fake.requests.length;
    for (const path of [
      "/taskgate/acme/..%2Fweb",
      "/taskgate/acme/web%2Fx/pull/1",
      "/taskgate/acme/../acme/web",
      "/taskgate/acme/..",
      "/taskgate/-acme/web",
      "/taskgate/acme/web/pull/0",
      "/taskgate/acme/web/pull/7x",
      "/taskgate/acme/web/pulls/7",
      "/taskgate/acme\\web",
    ]) {
      const cookie = `taskgate-session=${browser.cookies.get("taskgate-session")}`;
      const { hostname, port } = new URL(url);
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest({ hostname, port, path, headers: { cookie } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on("error", reject);
        request.end();
      });
      expect(status, path).toBe(404);
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe("every answer under /taskgate/", () => {
  it("carries the headers that keep the browser on this origin", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url } = await serve(fake);
    const browser = new Browser();
    await browser.signIn(url);
    const answers = [
      await browser.get(`${url}/taskgate/acme/web`),
      await browser.get(`${url}/taskgate/acme/missing`),
      await browser.get(`${url}/taskgate/login`),
      await browser.get(`${url}/taskgate/callback`),
      await browser.get(`${url}/taskgate/nothing/here/at/all`),
      await browser.get(`${url}/taskgate/acme/web`, { method: "POST" }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 302, 400, 404, 405]);
    for (const answer of answers) {
      expect(answer.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toBe("same-origin");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(CONTENT_SECURITY_POLICY).not.toContain("data:");
  });
});

describe("without the pages' settings", () => {
  it("serves no page, says so once at start naming what is missing, and still takes webhooks", async () => {
    const fake = awaitingApproval(sandbox.repos);
    const { url, lines, renderer } = await serve(fake, {
      TASKGATE_SESSION_SECRET: undefined,
      GITHUB_CLIENT_SECRET: "",
    });
    const notices = lines.filter((line) => line.includes("/taskgate/"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain("GITHUB_CLIENT_SECRET, TASKGATE_SESSION_SECRET");
    expect(notices[0]).not.toContain("TASKGATE_URL");
    expect(JSON.parse(notices[0]!).level).toBe(40);
    for (const path of ["/taskgate/acme/web", "/taskgate/login", "/taskgate/callback?code=c&state=s", "/taskgate/"]) {
      const answer = await rawGet(url, path);
      expect(answer.status, path).toBe(503);
      expect(answer.body).not.toContain("TASK-DATA");
    }
    expect(renderer.calls).toEqual([]);
    expect(fake.requests).toEqual([]);
    // The webhooks are still served (an unsigned delivery is refused, not missing).
    const delivery = await fetch(`${url}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(delivery.status).toBe(400);
  });

  it("names every variable when none is set, and refuses a short session secret", () => {
    const none = pagesSetup({});
    expect(none.on).toBe(false);
    expect(!none.on && none.missing).toEqual([
      "TASKGATE_URL",
      "GITHUB_CLIENT_ID",
      "GITHUB_CLIENT_SECRET",
      "TASKGATE_SESSION_SECRET",
    ]);
    const short = pagesSetup({
      TASKGATE_URL: "https://x.example",
      GITHUB_CLIENT_ID: "i",
      GITHUB_CLIENT_SECRET: "s",
      TASKGATE_SESSION_SECRET: "short",
    });
    expect(!short.on && short.message).toContain("TASKGATE_SESSION_SECRET (shorter than 32 characters)");
    const ghe = pagesSetup({
      TASKGATE_URL: "https://x.example/",
      GITHUB_CLIENT_ID: "i",
      GITHUB_CLIENT_SECRET: "s",
      TASKGATE_SESSION_SECRET: SECRET,
      GHE_HOST: "github.acme.example",
    });
    expect(ghe.on && ghe.config).toMatchObject({
      url: "https://x.example",
      webUrl: "https://github.acme.example",
      apiUrl: "https://github.acme.example/api/v3",
      secure: true,
    });
  });
});

describe("the App's registration", () => {
  it("names the pages' callback as the App's OAuth callback URL", () => {
    const manifest = (env: NodeJS.ProcessEnv) =>
      JSON.parse(registeredManifest("{}", "https://setup.example/", env)) as { callback_urls?: string[] };
    expect(manifest({ TASKGATE_URL: "https://taskgate.example.com/" }).callback_urls).toEqual([
      "https://taskgate.example.com/taskgate/callback",
    ]);
    expect(manifest({}).callback_urls).toEqual(["https://setup.example/taskgate/callback"]);
  });
});

describe("where a visitor may go next", () => {
  it("keeps paths under /taskgate/ and refuses everything else", () => {
    expect(safeNext("/taskgate/acme/web/pull/7")).toBe("/taskgate/acme/web/pull/7");
    expect(safeNext("/taskgate/acme/web?state=open&owner=dana")).toBe("/taskgate/acme/web?state=open&owner=dana");
    for (const next of [
      "//evil.example",
      "https://evil.example/taskgate/",
      "/\\evil.example",
      "/taskgate/\\evil",
      "/taskgate//evil.example",
      "/taskgate/../evil",
      "/taskgate/%2F%2Fevil.example",
      "/taskgate/%5cevil",
      "javascript:alert(1)",
      "/other",
      "",
      null,
    ]) {
      expect(safeNext(next), String(next)).toBeUndefined();
    }
  });
});

describe("the check links to the pull request's page", () => {
  async function deliver(fake: FakeGitHub, env: Record<string, string>): Promise<void> {
    const bot = probotWith([]);
    await bot.load(taskgateApp({ env }), { cwd: process.cwd(), addHandler: () => undefined });
    await bot.receive({
      id: "1",
      name: "pull_request",
      payload: fake.payload(example("pull_request", "opened")) as never,
    });
  }

  it("when the pages are on", async () => {
    const fake = awaitingApproval(sandbox.repos);
    await deliver(fake, {
      TASKGATE_URL: "https://taskgate.example.com/",
      GITHUB_CLIENT_ID: "i",
      GITHUB_CLIENT_SECRET: "s",
      TASKGATE_SESSION_SECRET: SECRET,
    });
    const created = fake.requests.find((request) => request.method === "POST" && request.path.endsWith("/check-runs"));
    expect(created?.body).toMatchObject({
      details_url: "https://taskgate.example.com/taskgate/acme/web/pull/7",
      head_sha: fake.sha("feature"),
    });
    const link = "[See this pull request on taskgate's page](https://taskgate.example.com/taskgate/acme/web/pull/7)";
    const summary = (created?.body as { output?: { summary?: string } }).output?.summary ?? "";
    expect(summary.trimEnd().endsWith(link)).toBe(true);
    const comment = fake.requests.find((request) => request.method === "POST" && request.path.endsWith("/comments"));
    expect(((comment?.body as { body?: string }).body ?? "").trimEnd().endsWith(link)).toBe(true);
  });

  it("and to the pull request on GitHub without TASKGATE_URL", async () => {
    const fake = awaitingApproval(sandbox.repos);
    await deliver(fake, {});
    const created = fake.requests.find((request) => request.method === "POST" && request.path.endsWith("/check-runs"));
    expect((created?.body as { details_url?: string }).details_url).not.toContain("/taskgate/");
    expect((created?.body as { details_url?: string }).details_url).toMatch(
      /^https:\/\/github\.com\/acme\/web\/pull\/7$/,
    );
    expect(JSON.stringify(created?.body)).not.toContain("taskgate's page");
    const comment = fake.requests.find((request) => request.method === "POST" && request.path.endsWith("/comments"));
    expect((comment?.body as { body?: string }).body).toContain("Waiting for approval");
    expect((comment?.body as { body?: string }).body).not.toContain("taskgate's page");
  });
});

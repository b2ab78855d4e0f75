/**
 * A `GitHubApi` on a plain Octokit against api.github.com, with nock answering: each route answers
 * once, and every request that reached it is logged as `METHOD /path`, so a test asserts both the
 * requests made and their number. Network connections stay disabled (`isolate`).
 */
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { GitHubApi, type Identity } from "../../src/github/api.js";

export const ORIGIN = "https://api.github.com";
export const OWNER = "acme";
export const REPO = "widgets";

export interface NockedApi {
  readonly api: GitHubApi;
  /** The requests made, in order, as `METHOD /path` (no query). */
  readonly requests: string[];
  /** The JSON bodies of the requests made, in order (`undefined` for none). */
  readonly bodies: unknown[];
  /** One answer of GitHub's to one request: `status` with a JSON `body`, or a network error. */
  answer(method: string, path: string, status: number, body?: unknown): void;
}

/** A client of `acme/widgets` with no retries, as the Action builds one; `identity` is the App's. */
export function nockedApi(identity: Identity = {}, baseUrl = ORIGIN): NockedApi {
  const requests: string[] = [];
  const bodies: unknown[] = [];
  const quiet = () => undefined;
  const octokit = new Octokit({
    auth: "ghs_test",
    baseUrl,
    request: { retries: 0 },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  const log = (method: string, uri: string, body: unknown) => {
    requests.push(`${method} ${uri.split("?")[0]}`);
    bodies.push(body === "" ? undefined : body);
  };
  const intercept = (method: string, path: string) =>
    nock(ORIGIN)
      .intercept(path, method)
      .query(() => true);
  return {
    api: new GitHubApi(octokit as never, { owner: OWNER, repo: REPO }, identity),
    requests,
    bodies,
    answer(method, path, status, body) {
      intercept(method, path).reply((uri, requestBody) => {
        log(method, uri, requestBody);
        return [status, body === undefined ? "" : JSON.stringify(body), { "content-type": "application/json" }];
      });
    },
  };
}

/** Call in `beforeEach`/`afterEach`: no request leaves the machine, and no answer is left over. */
export function isolate(): { before: () => void; after: () => void } {
  return {
    before: () => nock.disableNetConnect(),
    after: () => {
      nock.cleanAll();
      nock.enableNetConnect();
    },
  };
}

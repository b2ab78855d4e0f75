/**
 * GitHub's errors as taskgate sees them: every failed call of `GitHubApi` comes out as ONE typed
 * `GitHubError` (its HTTP status, GitHub's GraphQL errors, the call, and Octokit's error as its
 * cause), so the flows above it decide on a status or an error type and nothing else. And how a
 * failure is told to a person: one line naming the host or the cause and what to check, never a
 * payload, a stack or a token.
 */
import { redactSecrets } from "../core/index.js";

/** One error of a GraphQL answer, as GitHub lists it. */
export interface GraphQLErrorItem {
  readonly type?: string;
  readonly message: string;
  readonly path?: readonly (string | number)[];
}

/** A call to GitHub that failed: an HTTP error, a GraphQL answer with errors, or no answer at all. */
export class GitHubError extends Error {
  /** GitHub's HTTP status; absent when GitHub never answered (a network error, a deadline). */
  readonly status: number | undefined;
  /** The errors of a GraphQL answer (empty for a REST call). */
  readonly graphqlErrors: readonly GraphQLErrorItem[];
  /** The call, as `METHOD /path` (no query, no token). */
  readonly call: string;
  /** What data a GraphQL answer carried along with its errors. */
  readonly data: unknown;
  /** GitHub said no request is left in this hour (`x-ratelimit-remaining: 0`). */
  readonly rateLimited: boolean;

  constructor(
    message: string,
    options: {
      call: string;
      status?: number | undefined;
      graphqlErrors?: readonly GraphQLErrorItem[];
      data?: unknown;
      rateLimited?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GitHubError";
    this.call = options.call;
    this.status = options.status;
    this.graphqlErrors = options.graphqlErrors ?? [];
    this.data = options.data;
    this.rateLimited = options.rateLimited ?? false;
  }

  /** Did GitHub answer with one of these HTTP statuses? */
  is(...statuses: number[]): boolean {
    return this.status !== undefined && statuses.includes(this.status);
  }

  /** Does one of GitHub's GraphQL errors have one of these types (`NOT_FOUND`, `FORBIDDEN`, ...)? */
  hasType(...types: string[]): boolean {
    return this.graphqlErrors.some((item) => item.type !== undefined && types.includes(item.type));
  }
}

interface OctokitErrorShape {
  name?: string;
  message?: string;
  status?: unknown;
  request?: { method?: string; url?: string };
  response?: { headers?: Record<string, unknown> };
  errors?: readonly { type?: string; message?: string; path?: readonly (string | number)[] }[];
  data?: unknown;
}

/**
 * Octokit's error (`RequestError`: an HTTP status or no answer; `GraphqlResponseError`: a GraphQL
 * answer with errors; a deadline's `AbortError`) as a `GitHubError`, with Octokit's as its cause. The
 * one place that reads Octokit's errors; `call` names the call when the error does not.
 */
export function gitHubError(error: unknown, call: string): GitHubError {
  if (error instanceof GitHubError) return error;
  const found = (error ?? {}) as OctokitErrorShape;
  const message = typeof found.message === "string" ? found.message : String(error);
  const graphql = found.name === "GraphqlResponseError" && Array.isArray(found.errors);
  // Octokit names a request that got no answer (a network error) HttpError too, with status 500.
  const http = found.name === "HttpError" && typeof found.status === "number" && found.response !== undefined;
  return new GitHubError(message, {
    call: callOf(found.request) ?? call,
    cause: error,
    ...(http && { status: found.status as number }),
    ...(http && found.response?.headers?.["x-ratelimit-remaining"] === "0" && { rateLimited: true }),
    ...(graphql && {
      status: 200,
      graphqlErrors: found.errors!.map((item) => ({
        ...(item.type !== undefined && { type: item.type }),
        message: item.message ?? item.type ?? "unknown error",
        ...(item.path !== undefined && { path: item.path }),
      })),
      data: found.data,
    }),
  });
}

/** `METHOD /path` of a request Octokit made, without its query. */
function callOf(request: { method?: string; url?: string } | undefined): string | undefined {
  if (!request?.url) return undefined;
  try {
    return `${request.method ?? "GET"} ${new URL(request.url).pathname}`;
  } catch {
    return undefined;
  }
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  status?: number;
  cause?: unknown;
  request?: { method?: string; url?: string };
}

/** The error and its causes, outermost first. */
function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  for (let at = error; at && typeof at === "object" && out.length < 8; at = (at as ErrorLike).cause) {
    out.push(at as ErrorLike);
  }
  return out;
}

const NETWORK =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+|CERT_\w+|UNABLE_TO_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/;

/** Where a request went, as `host` and `METHOD /path` (no query, no token). */
function target(errors: readonly ErrorLike[]): { host: string | undefined; call: string | undefined } {
  const request = errors.find((item) => item.request?.url)?.request;
  if (!request?.url) return { host: undefined, call: undefined };
  try {
    const url = new URL(request.url);
    return { host: url.host, call: `${request.method ?? "GET"} ${url.pathname}` };
  } catch {
    return { host: undefined, call: undefined };
  }
}

/**
 * One line for a person: what failed, where, and what to check. `where` says which setting names
 * GitHub's host (the App: `GHE_HOST`; the Action: `GITHUB_API_URL`).
 */
export function describeFailure(error: unknown, where = "GHE_HOST"): string {
  const errors = chain(error);
  const first = errors[0] ?? {};
  // GitHub's status, on the typed error or (for an error that never passed GitHubApi) on Octokit's.
  const status = errors.find((item) => typeof item.status === "number")?.status;
  const { host, call } = target(errors);
  const at = host ? `GitHub at ${host}` : "GitHub";
  const network = errors.find((item) => typeof item.code === "string" && NETWORK.test(item.code));
  const timedOut = errors.some(
    (item) =>
      item.name === "TimeoutError" ||
      item.name === "AbortError" ||
      /aborted due to timeout|operation was aborted/i.test(item.message ?? ""),
  );
  const text = errors.map((item) => item.message ?? "").join(" ");
  let line: string;
  if (network) {
    line = `could not reach ${at} (${network.code}${call ? ` on ${call}` : ""}): check ${where}, the network and any proxy between them`;
  } else if (timedOut) {
    line = `${at} did not answer in time${call ? ` (${call})` : ""}: check ${where} and the network; the next event tries again`;
  } else if (/DECODER routines|PEM|private key|secretOrPrivateKey|JSON web token|invalid key/i.test(text)) {
    line = `the App's private key cannot sign its requests (${first.message ?? "invalid key"}): check PRIVATE_KEY (or PRIVATE_KEY_PATH) and APP_ID`;
  } else if (status !== undefined && status > 0) {
    line = `${at} answered ${status}${call ? ` to ${call}` : ""}: ${oneLine(first.message)}; ${statusHint(status, where)}`;
  } else {
    // Whatever failed inside a call: named as it is, not as the wrapper that carried it.
    const named = first.name === "GitHubError" && errors[1] ? errors[1] : first;
    line = `${named.name ?? "Error"}: ${oneLine(first.message)}`;
  }
  return redactSecrets(line);
}

function statusHint(status: number, where: string): string {
  if (status === 401)
    return "the credentials were refused: check APP_ID and PRIVATE_KEY (the App) or the token (the Action)";
  if (status === 403) return "a permission is missing or a rate limit was hit: check the App's permissions (app.yml)";
  if (status === 404) return `check that taskgate is installed on the repository, and ${where}`;
  if (status >= 500) return "GitHub had a problem; the next event tries again";
  return "see the message";
}

function oneLine(text: string | undefined): string {
  const flat = (text ?? "unknown error").replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

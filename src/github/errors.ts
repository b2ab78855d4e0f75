/**
 * How GitHub's errors are told apart (by the HTTP status Octokit attaches to them), and how a failure
 * is told to a person: one line naming the host or the cause and what to check, never a payload, a
 * stack or a token.
 */
import { redactSecrets } from "../core/index.js";

/** Is `error` an answer of GitHub's with one of these HTTP statuses? */
export function isStatus(error: unknown, ...statuses: number[]): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && statuses.includes(status);
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
  } else if (typeof first.status === "number" && first.status > 0) {
    const hint =
      first.status === 401
        ? "the credentials were refused: check APP_ID and PRIVATE_KEY (the App) or the token (the Action)"
        : first.status === 403
          ? "a permission is missing or a rate limit was hit: check the App's permissions (app.yml)"
          : first.status === 404
            ? `check that taskgate is installed on the repository, and ${where}`
            : first.status >= 500
              ? "GitHub had a problem; the next event tries again"
              : "see the message";
    line = `${at} answered ${first.status}${call ? ` to ${call}` : ""}: ${oneLine(first.message)}; ${hint}`;
  } else {
    line = `${first.name ?? "Error"}: ${oneLine(first.message)}`;
  }
  return redactSecrets(line);
}

function oneLine(text: string | undefined): string {
  const flat = (text ?? "unknown error").replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

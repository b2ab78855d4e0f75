/**
 * The pages' settings, read once from the environment. Without every one of them no page works at
 * all, and the App says so once, at start, naming what is missing; webhooks work either way.
 */

/** What the pages need, in the order the start message names them. */
export const PAGE_VARIABLES = ["TASKGATE_URL", "GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", "TASKGATE_SESSION_SECRET"];

/** A session secret shorter than this is refused as if it were missing. */
export const MIN_SECRET_LENGTH = 32;

export interface PagesConfig {
  /** The App's public base URL, without a trailing slash (`https://taskgate.example.com`). */
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly sessionSecret: string;
  /** Where visitors sign in: `https://github.com`, or `https://<GHE_HOST>`. */
  readonly webUrl: string;
  /** The REST API the visitor's token is used at: `https://api.github.com`, or `https://<GHE_HOST>/api/v3`. */
  readonly apiUrl: string;
  /** Cookies carry `Secure` (the public URL is https). */
  readonly secure: boolean;
}

export type PagesSetup =
  | { readonly on: true; readonly config: PagesConfig }
  | { readonly on: false; readonly missing: readonly string[]; readonly message: string };

function publicUrl(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
    if (url.search || url.hash || url.username || url.password) return undefined;
    return url.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/** Why each variable is unusable, by name (absent when it is fine). */
function problems(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  if (!env.TASKGATE_URL?.trim()) out.set("TASKGATE_URL", "TASKGATE_URL");
  else if (!publicUrl(env.TASKGATE_URL)) out.set("TASKGATE_URL", "TASKGATE_URL (not an http(s) URL)");
  for (const name of ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"]) if (!env[name]?.trim()) out.set(name, name);
  const secret = env.TASKGATE_SESSION_SECRET ?? "";
  if (!secret.trim()) out.set("TASKGATE_SESSION_SECRET", "TASKGATE_SESSION_SECRET");
  else if (secret.length < MIN_SECRET_LENGTH)
    out.set("TASKGATE_SESSION_SECRET", `TASKGATE_SESSION_SECRET (shorter than ${MIN_SECRET_LENGTH} characters)`);
  return out;
}

/** GitHub's web and API addresses: github.com, or the Enterprise Server `GHE_HOST` names. */
export function gitHubUrls(env: NodeJS.ProcessEnv): { webUrl: string; apiUrl: string } {
  const host = env.GHE_HOST?.trim();
  if (!host) return { webUrl: "https://github.com", apiUrl: "https://api.github.com" };
  const protocol = env.GHE_PROTOCOL?.trim() || "https";
  return { webUrl: `${protocol}://${host}`, apiUrl: `${protocol}://${host}/api/v3` };
}

/** The pages' settings, or what is missing (one line, for the start message). */
export function pagesSetup(env: NodeJS.ProcessEnv): PagesSetup {
  const found = problems(env);
  if (found.size > 0) {
    const missing = PAGE_VARIABLES.filter((name) => found.has(name));
    return {
      on: false,
      missing,
      message:
        `taskgate: the pages under /taskgate/ are off: set ${missing.map((name) => found.get(name)).join(", ")} ` +
        "(see docs/deploy.md); webhooks work as before",
    };
  }
  const url = publicUrl(env.TASKGATE_URL)!;
  return {
    on: true,
    config: {
      url,
      clientId: env.GITHUB_CLIENT_ID!.trim(),
      clientSecret: env.GITHUB_CLIENT_SECRET!.trim(),
      sessionSecret: env.TASKGATE_SESSION_SECRET!,
      ...gitHubUrls(env),
      secure: url.startsWith("https:"),
    },
  };
}

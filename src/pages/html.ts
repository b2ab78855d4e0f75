/**
 * The one escaper of the pages and the small builders around it. Every text that came from the
 * repository (ids, titles, paths, logins, messages, hints, review bodies) passes `text()`: secrets
 * redacted by the core's redactor, then HTML-escaped, so it is only ever shown, never run.
 */
import { redactSecrets } from "../core/index.js";

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes a text for an element's content or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

/** Repository text for the page: redacted, then escaped. */
export function text(value: string | null | undefined): string {
  return escapeHtml(redactSecrets(value ?? ""));
}

/** One attribute, its value redacted and escaped (`name="value"`). */
export function attr(name: string, value: string): string {
  return `${name}="${text(value)}"`;
}

/** A link whose href and label are escaped. */
export function link(href: string, label: string): string {
  return `<a ${attr("href", href)}>${text(label)}</a>`;
}

/** One URL component: redacted first (an encoded secret would slip past the redactor), then encoded. */
export function component(value: string): string {
  return encodeURIComponent(redactSecrets(value));
}

/** A path of URL segments, each encoded on its own. */
export function segments(...parts: readonly string[]): string {
  return parts.map(component).join("/");
}

/** Where a GitHub repository lives, for links (GitHub Enterprise: its own host). */
export interface RepositoryRef {
  readonly owner: string;
  readonly repo: string;
  /** `github.com` unless the server runs against GitHub Enterprise (`GHE_HOST`). */
  readonly host?: string;
}

function origin(host: string | undefined): string {
  return `https://${(host ?? "github.com").replace(/^https?:\/\//, "").replace(/\/+$/, "")}`;
}

export function githubBase(ref: RepositoryRef): string {
  return `${origin(ref.host)}/${segments(ref.owner, ref.repo)}`;
}

/** A person's profile on GitHub. */
export function userUrl(host: string | undefined, login: string): string {
  return `${origin(host)}/${component(login)}`;
}

/** The file and line on GitHub at one commit: `…/blob/<sha>/<path>#L<line>`. */
export function blobUrl(ref: RepositoryRef, sha: string, path: string, line?: number): string {
  const file = `${githubBase(ref)}/blob/${component(sha)}/${segments(...path.split("/"))}`;
  return line !== undefined && Number.isInteger(line) && line > 0 ? `${file}#L${line}` : file;
}

/** A query string from the parameters that are set, or "" when none is. */
export function queryString(params: Readonly<Record<string, string | number | undefined>>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([key, value]) => `${component(key)}=${component(String(value))}`);
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

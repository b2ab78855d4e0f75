/**
 * How every /taskgate/ response is sent: with headers that keep the browser on this origin
 * (the pages' one Content-Security-Policy, `default-src 'self'` and no script, from the views'
 * layout; no framing, no sniffing, no referrer to other sites) and never stored by a cache.
 */
import type { ServerResponse } from "node:http";
import { CONTENT_SECURITY_POLICY } from "../../pages/layout.js";
import { htmlPage } from "./render.js";

export { CONTENT_SECURITY_POLICY };

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store",
};

export interface Reply {
  readonly status: number;
  readonly body?: string | Buffer;
  readonly type?: string;
  readonly location?: string;
  readonly cookies?: readonly string[];
}

export function send(response: ServerResponse, reply: Reply): void {
  const body = reply.body ?? "";
  response.writeHead(reply.status, {
    ...PAGE_HEADERS,
    "content-type": reply.type ?? "text/html; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    ...(reply.location && { location: reply.location }),
    ...(reply.cookies && reply.cookies.length > 0 && { "set-cookie": [...reply.cookies] }),
  });
  response.end(body);
}

/** A short page that says what happened, and nothing of any repository. */
export function message(status: number, title: string, text: string, cookies?: readonly string[]): Reply {
  return { status, body: htmlPage(title, `<main><h1>${title}</h1><p>${text}</p></main>`), ...(cookies && { cookies }) };
}

/** The one answer for a page nobody may see here: no such repository, no access, no such pull request. */
export const NOT_FOUND: Reply = message(404, "Not found", "There is no page here, or you may not see it.");

export function redirect(location: string, cookies?: readonly string[]): Reply {
  return { status: 302, location, body: "", ...(cookies && { cookies }) };
}

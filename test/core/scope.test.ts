/**
 * `scopeCovers` decides when one listing serves another read (the git adapter's `plan`): it must
 * never say a scope covers one that reads a path it does not. And an audit's planned scope covers
 * what each preset's default layout reads.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/core/evaluate.js";
import { defaultConfig } from "../../src/core/kernel/config.js";
import { scopeCovers, scopeMatcher, type SnapshotScope } from "../../src/core/kernel/port.js";
import { likelyAuditScope } from "../../src/core/service.js";

const NAMES = ["a", "b", "ab", ""];
const path = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));
const prefix = fc.oneof(
  path,
  path.map((p) => `${p}/`),
  fc.constantFrom("", "/"),
);
const scope = fc.record({
  paths: fc.array(path, { maxLength: 3 }),
  prefixes: fc.array(prefix, { maxLength: 3 }),
});

/** Every path of up to three segments over the names: what either scope could match. */
const UNIVERSE = (() => {
  const out = new Set<string>();
  for (const a of NAMES) {
    out.add(a);
    for (const b of NAMES) {
      out.add(`${a}/${b}`);
      for (const c of NAMES) out.add(`${a}/${b}/${c}`);
    }
  }
  return [...out];
})();

describe("scopeCovers", () => {
  it("never claims to cover a scope that matches a path the outer one does not", () => {
    fc.assert(
      fc.property(scope, scope, (outer: SnapshotScope, inner: SnapshotScope) => {
        if (!scopeCovers(outer, inner)) return;
        const inOuter = scopeMatcher(outer);
        const inInner = scopeMatcher(inner);
        for (const candidate of UNIVERSE) if (inInner(candidate)) expect(inOuter(candidate)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("covers what it should: a scope itself, a file under a folder, a folder under a folder", () => {
    const outer = { paths: [".github/taskgate.yml"], prefixes: ["tasks/", "docs/status"] };
    expect(scopeCovers(outer, outer)).toBe(true);
    expect(scopeCovers(outer, { paths: ["tasks/t1/.state"], prefixes: ["docs/status/cards/"] })).toBe(true);
    expect(scopeCovers(outer, { paths: ["tasks"], prefixes: [] })).toBe(false);
    expect(scopeCovers(outer, { paths: [], prefixes: ["docs/"] })).toBe(false);
    expect(scopeCovers(outer, { paths: [], prefixes: ["tasksx/"] })).toBe(false);
    expect(scopeCovers(outer, undefined)).toBe(false);
    expect(scopeCovers(undefined, outer)).toBe(true);
    expect(scopeCovers({ paths: [], prefixes: ["/"] }, undefined)).toBe(true);
  });
});

describe("an audit's planned scope", () => {
  it.each(["phases", "board"] as const)("covers what a %s audit of the default layout reads", (preset) => {
    const created = createModel(defaultConfig(preset));
    if (!created.ok) throw new Error("the default config builds no model");
    expect(scopeCovers(likelyAuditScope(), created.model.auditScope())).toBe(true);
  });

  it("covers a config kept elsewhere", () => {
    expect(scopeCovers(likelyAuditScope("ops/taskgate.yml"), { paths: ["ops/taskgate.yml"], prefixes: [] })).toBe(true);
  });
});

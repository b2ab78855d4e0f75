/**
 * The board's canonical readers must return exactly what the schema returns (same values, same key
 * order) whenever they accept an item, and must never accept what the schema refuses. Generated
 * items mix canonical ones with every kind of deviation: missing, extra, reordered, mistyped fields.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import {
  ACTIONS,
  boardSchemas,
  STATUSES,
  canonicalDefinition,
  isTaskId,
  canonicalLedgerEntry,
  readDefinitions,
  readLedger,
} from "../../src/core/board/formats.js";

const { DefinitionSchema, DefinitionsSchema, LedgerEntrySchema, LedgerSchema } = boardSchemas();

const id = fc.oneof(fc.constantFrom("T1", "a.b-c_9", "x..y", "-bad", "", "__proto__", "T 2"), fc.string());
const text = fc.oneof(fc.constantFrom("", "x", "carol/agent-1"), fc.string());
const noise = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const maybe = <T>(arb: fc.Arbitrary<T>, weight = 4) =>
  fc.oneof({ weight, arbitrary: arb }, { weight: 1, arbitrary: noise });
/** Mostly a valid text, sometimes anything. */
const wellFormed = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("x", "carol/agent-1", "A title") },
  { weight: 1, arbitrary: text },
);

/** A record whose keys may be dropped, reversed or joined by an extra key (even `__proto__`). */
function shaped(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(fields);
  return fc
    .record({
      values: fc.record(fields),
      canonical: fc.boolean(),
      drop: fc.subarray(keys, { maxLength: 2 }),
      reverse: fc.boolean(),
      extra: fc.option(fc.constantFrom("extra", "__proto__", "constructor"), { freq: 4 }),
    })
    .map(({ values, canonical, drop, reverse, extra }) => {
      const kept = canonical ? keys : keys.filter((key) => !drop.includes(key));
      const out: Record<string, unknown> = {};
      for (const key of !canonical && reverse ? [...kept].reverse() : kept) out[key] = values[key];
      if (!canonical && extra) {
        // As JSON.parse makes it: an own property, whatever its name.
        Object.defineProperty(out, extra, { value: 1, enumerable: true, writable: true, configurable: true });
      }
      return out;
    });
}

const history = shaped({
  at: maybe(text),
  by: maybe(text),
  action: maybe(fc.constantFrom(...ACTIONS, "approved")),
  from: maybe(fc.constantFrom(...STATUSES, "open")),
  to: maybe(fc.constantFrom(...STATUSES)),
  note: maybe(fc.option(text), 8),
  evidence: maybe(fc.option(text), 8),
  handoff: maybe(fc.option(text), 8),
});

const entry = shaped({
  status: maybe(fc.constantFrom(...STATUSES, "Done")),
  owner: maybe(fc.option(text)),
  external_wait: maybe(fc.boolean()),
  blocked_by: fc.oneof(fc.array(id, { maxLength: 3 }), noise, id),
  history: fc.oneof(fc.array(history, { maxLength: 3 }), noise),
});

const definition = shaped({
  id: maybe(fc.oneof({ weight: 6, arbitrary: fc.constant("T1") }, { weight: 1, arbitrary: id }), 12),
  title: maybe(wellFormed, 12),
  role: maybe(wellFormed, 12),
  stage: maybe(wellFormed, 12),
  reviewer_role: maybe(wellFormed, 12),
  depends_on: maybe(fc.array(id, { maxLength: 3 }), 12),
  paths: maybe(fc.array(wellFormed, { maxLength: 3 }), 12),
  outcome: maybe(wellFormed, 12),
  steps: maybe(fc.array(fc.string(), { maxLength: 2 }), 12),
  checks: maybe(fc.array(fc.string(), { maxLength: 2 }), 12),
  external: maybe(fc.boolean(), 12),
});

/** Values and key order, as a file written from them would show them. */
const written = (value: unknown) => JSON.stringify(value);

describe("canonical board readers", () => {
  it("accept a ledger entry only when the schema does, and return what it returns", () => {
    let accepted = 0;
    fc.assert(
      fc.property(entry, (item) => {
        const fast = canonicalLedgerEntry(item);
        if (fast === undefined) return;
        accepted++;
        const parsed = LedgerEntrySchema.safeParse(item);
        expect(parsed.success).toBe(true);
        expect(written(fast)).toBe(written(parsed.data));
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 6000 },
    );
    expect(accepted).toBeGreaterThan(15); // the generator does reach the canonical path
  });

  it("accept a definition only when the schema does, and return what it returns", () => {
    let accepted = 0;
    fc.assert(
      fc.property(definition, (item) => {
        const fast = canonicalDefinition(item);
        if (fast === undefined) return;
        accepted++;
        const parsed = DefinitionSchema.safeParse(item);
        expect(parsed.success).toBe(true);
        expect(written(fast)).toBe(written(parsed.data));
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(15);
  });

  it("read whole files as the schema does, item by item", () => {
    const ledger = fc.record({
      revision: fc.oneof(fc.nat(), fc.constant(-1), fc.constant(1.5)),
      tasks: fc.dictionary(id, entry, { maxKeys: 4 }),
    });
    fc.assert(
      fc.property(ledger, fc.array(definition, { maxLength: 4 }), (file, tasks) => {
        const parsed = LedgerSchema.safeParse(file);
        const fast = readLedger(file);
        // Refusing is always safe (the file is then read by the schema); accepting must agree with it.
        if (fast !== undefined) expect(written(fast)).toBe(written(parsed.success ? parsed.data : "refused"));
        const defs = DefinitionsSchema.safeParse({ tasks });
        const fastDefs = readDefinitions({ tasks });
        // Item by item, the readers fall back to the schema: they refuse exactly what it refuses.
        expect(fastDefs === undefined).toBe(!defs.success);
        if (fastDefs !== undefined) expect(written(fastDefs)).toBe(written(defs.data));
      }),
      { numRuns: 500 },
    );
  });
});

describe("task ids without the schema", () => {
  it("accepts exactly the ids TaskIdSchema accepts", () => {
    const TaskIdSchema = boardSchemas().TaskIdSchema;
    const id = fc.string({ unit: fc.constantFrom("a", "Z", "7", ".", "_", "-", "/", " ", "é"), maxLength: 6 });
    fc.assert(
      fc.property(fc.oneof(id, fc.anything()), (value) => {
        expect(isTaskId(value)).toBe(TaskIdSchema.safeParse(value).success);
      }),
      { numRuns: 3000 },
    );
    for (const value of ["T1", "a..b", ".a", "", "a/b", 7])
      expect(isTaskId(value)).toBe(TaskIdSchema.safeParse(value).success);
  });
});

describe("canonical board readers, field by field", () => {
  const step = {
    at: "2024-05-01T09:00:00Z",
    by: "carol",
    action: "claim",
    from: "todo",
    to: "in_progress",
    evidence: null,
  };
  const goodEntry = {
    status: "in_progress",
    owner: "carol/a1",
    external_wait: false,
    blocked_by: ["T2"],
    history: [step],
  };
  const goodDefinition = {
    id: "T1",
    title: "A task",
    role: "backend",
    stage: "one",
    reviewer_role: "qa",
    depends_on: ["T2"],
    paths: ["src/**"],
    outcome: "",
    steps: [],
    checks: ["npm test"],
    external: false,
  };
  const wrong = [undefined, null, 5, "", "x..y", [], {}, true, ["-bad"], [5]];

  /** Every way of putting one wrong value in one field, the history's fields included. */
  function variants(base: Record<string, unknown>, nested?: string): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const key of Object.keys(base)) for (const value of wrong) out.push({ ...base, [key]: value });
    if (nested) {
      for (const key of Object.keys(step)) {
        for (const value of wrong) out.push({ ...base, [nested]: [{ ...step, [key]: value }] });
      }
      for (const key of ["note", "handoff"]) {
        for (const value of wrong) out.push({ ...base, [nested]: [{ ...step, [key]: value }] });
      }
    }
    return out;
  }

  it("accepts the canonical items", () => {
    expect(canonicalLedgerEntry(goodEntry)).toStrictEqual(LedgerEntrySchema.parse(goodEntry));
    expect(canonicalDefinition(goodDefinition)).toStrictEqual(DefinitionSchema.parse(goodDefinition));
  });

  it("never accepts a wrong field the schema would read differently", () => {
    for (const item of variants(goodEntry, "history")) {
      const fast = canonicalLedgerEntry(item);
      if (fast === undefined) continue;
      expect(written(fast), JSON.stringify(item)).toBe(written(LedgerEntrySchema.parse(item)));
    }
    for (const item of variants(goodDefinition)) {
      const fast = canonicalDefinition(item);
      if (fast === undefined) continue;
      expect(written(fast), JSON.stringify(item)).toBe(written(DefinitionSchema.parse(item)));
    }
  });
});

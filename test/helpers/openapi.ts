/**
 * GitHub's published OpenAPI description of its REST API (@octokit/openapi, api.github.com.json) as
 * a checker of the requests taskgate makes: is the method and path an operation GitHub has, are the
 * query parameters ones it declares (with allowed values), and does a JSON body carry the required
 * properties, no undeclared ones, and allowed values (at its top level). The description is 13 MB:
 * it is read when first needed, and once per process.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** A request as the fake records it: the path may carry its query string, or `query` may. */
export interface RequestToCheck {
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | readonly string[]>> | undefined;
  /** The parsed JSON body (or the text, if it was not JSON); `undefined` or "" for none. */
  readonly body?: unknown;
}

interface Schema {
  readonly $ref?: string;
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
}

interface Parameter {
  readonly $ref?: string;
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required?: boolean;
  readonly schema?: Schema;
  /** GitHub's mark of a path parameter whose value may contain slashes (a ref, a file path). */
  readonly "x-multi-segment"?: boolean;
}

interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly $ref?: string;
    readonly required?: boolean;
    readonly content?: Readonly<Record<string, { readonly schema?: Schema }>>;
  };
}

interface Spec {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

interface Route {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  /** The path parameters, in the order the pattern captures them. */
  readonly params: readonly Parameter[];
  readonly query: ReadonlyMap<string, Parameter>;
  readonly operation: Operation;
  /** How specific the template is: its literal segments, then how few multi-segment parameters. */
  readonly literals: number;
  readonly multi: number;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Endpoints GitHub serves outside the REST description: GraphQL's body is checked against its schema. */
const OUTSIDE = new Set(["POST /graphql"]);

const CACHE = Symbol.for("taskgate.test.openapi");
type Loaded = { spec: Spec; routes: Route[] };

/** The description and its routes, parsed once per process (shared by the test files it runs). */
function loaded(): Loaded {
  const store = globalThis as { [CACHE]?: Loaded };
  if (store[CACHE]) return store[CACHE];
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  const spec = JSON.parse(readFileSync(file, "utf8")) as Spec;
  store[CACHE] = { spec, routes: routes(spec) };
  return store[CACHE];
}

/** Reads the description now (it takes a few hundred milliseconds), rather than at the first request. */
export function loadOpenApi(): void {
  loaded();
}

/** Follows `$ref`s (`#/components/…`) to what they name. */
function resolve<T extends { readonly $ref?: string }>(spec: Spec, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 32 && (current as { $ref?: string } | undefined)?.$ref; hops++) {
    const ref = (current as { $ref: string }).$ref;
    if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], spec);
    if (current === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return current as T;
}

function routes(spec: Spec): Route[] {
  const out: Route[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    const shared = ((item.parameters as Parameter[] | undefined) ?? []).map((param) => resolve(spec, param));
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      const own = (operation.parameters ?? []).map((param) => resolve(spec, param));
      // An operation's own parameter overrides a path-level one of the same name and location.
      const all = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      const byName = new Map(all.filter((p) => p.in === "path").map((p) => [p.name, p]));
      const params: Parameter[] = [];
      let multi = 0;
      const source = template
        .split("/")
        .map((segment) =>
          segment.replace(/\{([^}]+)\}|[^{]+/g, (text, name: string | undefined) => {
            if (name === undefined) return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            const param = byName.get(name) ?? { name, in: "path" as const };
            params.push(param);
            if (param["x-multi-segment"]) multi++;
            return param["x-multi-segment"] ? "(.+)" : "([^/]+)";
          }),
        )
        .join("/");
      const literals = template.split("/").filter((segment) => segment && !segment.includes("{")).length;
      out.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        params,
        query: new Map(all.filter((p) => p.in === "query").map((p) => [p.name, p])),
        operation,
        literals,
        multi,
      });
    }
  }
  return out;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The routes whose template matches the path, with their decoded path parameters, best first. */
function matches(spec: Spec, routes: readonly Route[], path: string): { route: Route; values: string[] }[] {
  const found: { route: Route; values: string[] }[] = [];
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const values = match.slice(1).map(decode);
    // A parameter that is a number (an issue's, a comment's) tells `/issues/comments` from `/issues/{n}`.
    const typed = route.params.every((param, at) => {
      const schema = param.schema && resolve(spec, param.schema);
      return schema?.type !== "integer" || /^\d+$/.test(values[at]!);
    });
    if (typed) found.push({ route, values });
  }
  return found.sort((a, b) => b.route.literals - a.route.literals || a.route.multi - b.route.multi);
}

/**
 * What GitHub's descriptions of parameters say in prose, for the operations taskgate uses: a ref is
 * `heads/x` in `/git/refs/{ref}` but `refs/heads/x` when created; a comparison is `BASE...HEAD`.
 */
function prose(operationId: string, params: Record<string, string>, body: unknown): string[] {
  const problems: string[] = [];
  if (/^git\/(update-ref|delete-ref|get-ref|list-matching-refs)$/.test(operationId) && /^refs\//.test(params.ref!))
    problems.push(`path parameter ref "${params.ref}" must not start with refs/ (e.g. heads/main)`);
  if (operationId === "git/create-ref") {
    const ref = (body as { ref?: unknown } | undefined)?.ref;
    if (typeof ref === "string" && !/^refs\/[^/]+\/.+/.test(ref))
      problems.push(`body property ref "${ref}" must be fully qualified (e.g. refs/heads/main)`);
  }
  if (operationId === "repos/compare-commits-with-basehead" && !params.basehead!.includes("..."))
    problems.push(`path parameter basehead "${params.basehead}" must be BASE...HEAD`);
  return problems;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Problems of one value against a schema: its type, null, and its enum (not what it contains). */
function valueProblems(spec: Spec, raw: Schema, value: unknown, what: string): string[] {
  const schema = resolve(spec, raw);
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    if (value === null && schema.nullable) return [];
    if (variants.some((variant) => valueProblems(spec, variant, value, what).length === 0)) return [];
    return [`${what} ${JSON.stringify(value)} fits none of its ${variants.length} allowed forms`];
  }
  for (const part of schema.allOf ?? []) {
    const problems = valueProblems(spec, part, value, what);
    if (problems.length > 0) return problems;
  }
  if (value === null) {
    return schema.nullable || schema.enum?.includes(null) ? [] : [`${what} may not be null`];
  }
  const actual = typeOf(value);
  if (schema.type && schema.type !== actual && !(schema.type === "number" && actual === "integer"))
    return [`${what} is ${actual}, not ${schema.type}`];
  if (schema.enum && !schema.enum.includes(value))
    return [`${what} ${JSON.stringify(value)} is not one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`];
  return [];
}

/** A query parameter's value (always text) against its schema. */
function queryProblems(spec: Spec, param: Parameter, value: string): string[] {
  const what = `query parameter ${param.name}`;
  const schema = param.schema ? resolve(spec, param.schema) : {};
  if (schema.type === "integer" && !/^-?\d+$/.test(value)) return [`${what} "${value}" is not an integer`];
  if (schema.type === "number" && !Number.isFinite(Number(value))) return [`${what} "${value}" is not a number`];
  if (schema.type === "boolean" && !/^(true|false)$/.test(value)) return [`${what} "${value}" is not a boolean`];
  if (schema.enum && !schema.enum.map(String).includes(value))
    return [`${what} "${value}" is not one of ${schema.enum.join(", ")}`];
  return [];
}

/** One form a body may take: `oneOf`/`anyOf` make several, `allOf` merges. */
interface Shape {
  readonly type: string | undefined;
  readonly properties: Readonly<Record<string, Schema>> | undefined;
  readonly required: readonly string[];
  readonly open: boolean;
}

function merge(a: Shape, b: Shape): Shape {
  return {
    type: a.type ?? b.type,
    properties: a.properties || b.properties ? { ...a.properties, ...b.properties } : undefined,
    required: [...a.required, ...b.required],
    open: a.open || b.open,
  };
}

function shapes(spec: Spec, raw: Schema): Shape[] {
  const schema = resolve(spec, raw);
  const additional = schema.additionalProperties;
  let out: Shape[] = [
    {
      type: schema.type,
      properties: schema.properties,
      required: schema.required ?? [],
      open: additional !== undefined && additional !== false,
    },
  ];
  for (const part of schema.allOf ?? []) out = out.flatMap((shape) => shapes(spec, part).map((p) => merge(shape, p)));
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) out = out.flatMap((shape) => variants.flatMap((v) => shapes(spec, v).map((p) => merge(shape, p))));
  return out;
}

function shapeProblems(spec: Spec, shape: Shape, body: unknown): string[] {
  const actual = typeOf(body);
  if (shape.type && shape.type !== actual) return [`body is ${actual}, not ${shape.type}`];
  if (actual !== "object") return [];
  const record = body as Record<string, unknown>;
  const problems = shape.required
    .filter((name) => !(name in record))
    .map((name) => `body property ${name} is required`);
  for (const [name, value] of Object.entries(record)) {
    const schema = shape.properties?.[name];
    if (schema) problems.push(...valueProblems(spec, schema, value, `body property ${name}`));
    else if (shape.properties && !shape.open) problems.push(`body property ${name} is not declared`);
  }
  return problems;
}

function bodyProblems(spec: Spec, operation: Operation, body: unknown): string[] {
  const absent = body === undefined || body === "";
  const requestBody = operation.requestBody && resolve(spec, operation.requestBody);
  if (!requestBody) {
    const empty = absent || (typeOf(body) === "object" && Object.keys(body as object).length === 0);
    return empty ? [] : ["takes no request body"];
  }
  if (absent) return requestBody.required ? ["a request body is required"] : [];
  const json = requestBody.content?.["application/json"];
  if (!json?.schema) return [];
  if (typeof body === "string") return ["body is not JSON"];
  const forms = shapes(spec, json.schema);
  const results = forms.map((shape) => shapeProblems(spec, shape, body));
  if (results.some((problems) => problems.length === 0)) return [];
  const nearest = results.reduce((best, problems) => (problems.length < best.length ? problems : best));
  return forms.length > 1 ? [`body fits none of ${forms.length} forms; nearest: ${nearest.join("; ")}`] : nearest;
}

/**
 * Everything wrong with a request by GitHub's OpenAPI description; `[]` when nothing is. `POST
 * /graphql` is outside it (its document is checked against GitHub's GraphQL schema instead).
 */
export function validateRequest(request: RequestToCheck): string[] {
  const method = request.method.toUpperCase();
  const [path = "/", search = ""] = request.path.split("?");
  if (OUTSIDE.has(`${method} ${path}`)) return [];
  const { spec, routes } = loaded();
  const found = matches(spec, routes, path);
  const best = found.find((item) => item.route.method === method);
  if (!best) {
    const others = [...new Set(found.map((item) => item.route.method))];
    return [
      others.length > 0
        ? `unknown operation: GitHub has no ${method} ${found[0]!.route.template} (only ${others.join(", ")})`
        : `unknown operation: GitHub has no path ${path}`,
    ];
  }
  const { route, values } = best;
  const id = route.operation.operationId;
  const params = Object.fromEntries(route.params.map((param, at) => [param.name, values[at]!]));
  const problems = prose(id, params, request.body);

  const query = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(search)) query.set(name, [...(query.get(name) ?? []), value]);
  for (const [name, value] of Object.entries(request.query ?? {}))
    query.set(name, [...(query.get(name) ?? []), ...(typeof value === "string" ? [value] : value)]);
  for (const [name, given] of query) {
    const param = route.query.get(name);
    if (!param) {
      problems.push(`query parameter ${name} is not declared`);
      continue;
    }
    for (const value of new Set(given)) problems.push(...queryProblems(spec, param, value));
  }
  for (const param of route.query.values())
    if (param.required && !query.has(param.name)) problems.push(`query parameter ${param.name} is required`);

  problems.push(...bodyProblems(spec, route.operation, request.body));
  return problems.map((problem) => `${id} (${method} ${route.template}): ${problem}`);
}

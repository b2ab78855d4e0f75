/**
 * Own-property lookups. Keys that come from repository content or a config (task ids, roles,
 * permissions, gate names) are looked up only among an object's own properties, so `constructor`,
 * `toString` or `__proto__` never reach `Object.prototype`.
 */

/** The value of an own property, or `undefined`. */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

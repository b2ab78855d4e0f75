// Session checks for the notes API (API-3, in progress).
export function readSession(_req) {
  return null;
}
